import { readFile, rename, writeFile } from 'node:fs/promises';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, MASTER_KEY, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';

let mock: MockUpstream;
let gw: TestGateway;

beforeAll(async () => {
  mock = await startMockUpstream();
  gw = await startTestGateway('chat.yaml', { MOCK_URL: `${mock.url}/v1` }, { watch: true });
  await gw.gateway.config.watcher?.ready;
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
});

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// The reload details (file:line:col) are shown to admins only.
const status = async () => (await fetch(`${gw.url}/v1/system/status`, { headers: { authorization: `Bearer ${MASTER_KEY}` } })).json();

describe('hot reload of gateway.yaml', () => {
  it('applies a valid edit within a second (rename-on-save) without dropping a request in flight', async () => {
    mock.setBehavior('gpt-4o-mini', { chunkDelayMs: 100, reply: 'one two three four five six seven eight' });
    const inFlight = client(gw).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream: true });
    const stream = await inFlight;

    const original = await readFile(gw.configFile, 'utf8');
    const edited = original.replace('models:\n  - id: gpt-4o-mini', 'models:\n  - id: added-model\n    name: Added\n    provider: mock\n    upstream_model: gpt-4o\n  - id: gpt-4o-mini');
    // Editors write a temp file then rename it over the original.
    await writeFile(`${gw.configFile}.tmp`, edited);
    await rename(`${gw.configFile}.tmp`, gw.configFile);
    const started = Date.now();
    await until(async () => ((await status()).last_reload?.ok ? true : undefined));
    expect(Date.now() - started).toBeLessThan(1000);

    const completion = await client(gw).chat.completions.create({ model: 'added-model', messages: [{ role: 'user', content: 'new' }] });
    expect(completion.model).toBe('added-model');

    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('one two three four five six seven eight');
    mock.reset();
  });

  it('applies a reload but reports the startup-only settings it changed as needing a restart', async () => {
    const valid = await readFile(gw.configFile, 'utf8');
    await writeFile(gw.configFile, `${valid}\nlogs:\n  queue_max: 500\n`);
    const report = await until(async () => {
      const body = await status();
      return body.last_reload?.restart_required ? body.last_reload : undefined;
    });
    expect(report).toMatchObject({ ok: true, error: null, restart_required: ['logs.queue_max'] });
    await writeFile(gw.configFile, valid);
    await until(async () => ((await status()).last_reload?.restart_required ? undefined : true));
  });

  it('refuses an invalid edit, keeps serving the old config, and reports file:line:col and path', async () => {
    const valid = await readFile(gw.configFile, 'utf8');
    await writeFile(gw.configFile, valid.replace('type: compat', 'type: telepathy'));
    const report = await until(async () => {
      const body = await status();
      return body.last_reload && body.last_reload.ok === false ? body.last_reload : undefined;
    });
    expect(report.error).toMatch(/gateway\.yaml:\d+:\d+ providers\[0\]\.type must be one of compat, vendor_b, vendor_c, vendor_d, custom/);
    expect(report.at).toEqual(expect.any(String));
    const completion = await client(gw).chat.completions.create({ model: 'added-model', messages: [{ role: 'user', content: 'still' }] });
    expect(completion.choices[0].message.content).toBe('Echo: still');

    await writeFile(gw.configFile, valid.replace('  - id: added-model\n    name: Added\n    provider: mock\n    upstream_model: gpt-4o\n', ''));
    await until(async () => ((await status()).last_reload?.ok ? true : undefined));
    const error = await client(gw).chat.completions.create({ model: 'added-model', messages: [{ role: 'user', content: 'x' }] }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
  });
});
