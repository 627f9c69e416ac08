import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, MASTER_KEY, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream();
});
afterAll(async () => mock?.close());

describe('custom plugins from pipeline:', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway('custom-plugin.yaml', { MOCK_URL: `${mock.url}/v1`, EXAMPLES_DIR: resolve('examples') });
  });
  afterAll(async () => gw?.close());

  it('runs the README example plugin in its configured place', async () => {
    const { data, response } = await client(gw)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], user: 'alice' })
      .withResponse();
    expect(data.choices[0].message.content).toBe('Echo: hi');
    expect(response.headers.get('x-checked-by')).toBe('block-users');
  });

  it('short-circuits with its own error before the upstream is called', async () => {
    mock.reset();
    const error = await client(gw).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], user: 'mallory' }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(error.error).toMatchObject({ code: 'user_blocked', message: "User 'mallory' is blocked." });
    expect(mock.requests).toHaveLength(0);
  });

  it('refuses a reload whose plugin options are invalid, naming file:line:col and the option', async () => {
    const valid = await readFile(gw.configFile, 'utf8');
    try {
      await writeFile(
        gw.configFile,
        valid
          .replace('options: { blocked: [mallory], header: x-checked-by }', 'options: { blocked: [mallory], header: 5, bogus: true }')
          .replace('  - route\n', '  - route\n  - { name: cache, options: { ttl_seconds: -1 } }\n'),
      );
      const status = await gw.gateway.config.reload();
      expect(status.ok).toBe(false);
      expect(status.error!.split('\n')).toEqual([
        `${gw.configFile}:54:44 pipeline[2].options.header must be string`,
        `${gw.configFile}:54:47 pipeline[2].options.bogus is not a known option`,
        `${gw.configFile}:57:44 pipeline[5].options.ttl_seconds must be >= 0`,
      ]);
      const shown = await (await fetch(`${gw.url}/v1/system/status`, { headers: { authorization: `Bearer ${MASTER_KEY}` } })).json();
      expect(shown.last_reload).toMatchObject({ ok: false, error: status.error });
      // The running config stays.
      const data = await client(gw).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'still' }], user: 'alice' });
      expect(data.choices[0].message.content).toBe('Echo: still');
    } finally {
      await writeFile(gw.configFile, valid);
      expect((await gw.gateway.config.reload()).ok).toBe(true);
    }
  });
});

describe('a failing custom step', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway('failing-plugin.yaml', { MOCK_URL: `${mock.url}/v1`, PLUGINS_DIR: resolve('test/fixtures/plugins') });
  });
  afterAll(async () => gw?.close());

  it('becomes a clean 500 in the error shape, hiding the internal message, and the gateway keeps serving', async () => {
    for (let i = 0; i < 2; i++) {
      const error = await client(gw).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e);
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect(error.error).toEqual({ message: expect.any(String), type: 'server_error', param: null, code: 'internal_error' });
      expect(JSON.stringify(error.error)).not.toContain('boom');
    }
    const health = await fetch(`${gw.url}/v1/system/health`);
    expect(health.status).toBe(200);
  });
});

describe('plugin options are validated by the plugin schema at load', () => {
  it('refuses to start with options its schema rejects, naming file:line:col and the option', async () => {
    const error = await startTestGateway('bad-plugin-options.yaml', { MOCK_URL: `${mock.url}/v1`, EXAMPLES_DIR: resolve('examples') }).catch((e) => e);
    expect(error.problems).toEqual([expect.stringMatching(/gateway\.yaml:54:25 pipeline\[2\]\.options\.blocked must be array$/)]);
  });

  it('refuses to start when the module cannot be loaded, naming its module: line', async () => {
    const error = await startTestGateway('custom-plugin.yaml', { MOCK_URL: `${mock.url}/v1`, EXAMPLES_DIR: '/nonexistent' }).catch((e) => e);
    expect(error.problems).toEqual([
      expect.stringMatching(/gateway\.yaml:53:13 pipeline\[2\]\.module cannot load module '\/nonexistent\/plugins\/block-users\.ts': /),
    ]);
  });
});
