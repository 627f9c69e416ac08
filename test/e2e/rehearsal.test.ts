/**
 * The start rehearsal (src/boot/rehearsal.ts) as an operator sees it: the gateway rehearses before
 * it listens (so readiness comes after), leaves no trace in the call log, the usage counters or the
 * upstream, can be turned off, and refuses a malformed setting at start.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, waitHealthy, type GatewayProcess } from '../_process.ts';
import { DEMO_KEY, MASTER_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';

let mock: MockUpstream;
let dir: string;
const running: GatewayProcess[] = [];

beforeAll(async () => {
  mock = await startMockUpstream();
  dir = await mkdtemp(join(tmpdir(), 'gw-rehearsal-'));
});
afterAll(async () => {
  for (const gateway of running) {
    gateway.child.kill('SIGTERM');
    await gateway.exited;
  }
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

function launch(name: string, env: Record<string, string> = {}) {
  return spawnGateway({
    GATEWAY_CONFIG: resolve('test/fixtures/chat.yaml'),
    GATEWAY_MASTER_KEY: MASTER_KEY,
    GATEWAY_WATCH: 'false',
    GATEWAY_DATA_DIR: join(dir, name),
    MOCK_URL: `${mock.url}/v1`,
    REDIS_URL: '',
    DATABASE_URL: '',
    ...env,
  });
}

const lineIndex = (output: string, message: string) => output.split('\n').findIndex((line) => line.includes(`"msg":"${message}"`));

describe('the start rehearsal', () => {
  it('runs before the gateway listens, and leaves no row or upstream call behind (counters: src/boot/rehearsal.test.ts)', async () => {
    const gateway = await launch('on', { GATEWAY_REHEARSAL_CALLS: '10' });
    running.push(gateway);
    await waitHealthy(gateway);
    const output = gateway.output();
    expect(output).toMatch(/"msg":"start rehearsal done","calls":10/);
    expect(lineIndex(output, 'start rehearsal done')).toBeLessThan(lineIndex(output, 'gateway listening'));
    expect(mock.requests).toHaveLength(0); // the rehearsal's upstream is its own

    // The first real call is the only one the log and the key's usage know of.
    const answer = await fetch(`${gateway.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(answer.status).toBe(200);
    const admin = { authorization: `Bearer ${MASTER_KEY}` };
    let total = 0;
    for (let i = 0; i < 100 && total === 0; i++) {
      const page = (await (await fetch(`${gateway.url}/v1/admin/logs`, { headers: admin })).json()) as { meta: { total: number }; data: Array<{ model: string }> };
      total = page.meta.total;
      if (total === 0) await new Promise((r) => setTimeout(r, 50));
      else expect(page.data.map((item) => item.model)).toEqual(['gpt-4o-mini']);
    }
    expect(total).toBe(1);
  });

  it('is off with GATEWAY_REHEARSAL_CALLS=0', async () => {
    const gateway = await launch('off', { GATEWAY_REHEARSAL_CALLS: '0' });
    running.push(gateway);
    await waitHealthy(gateway);
    expect(gateway.output()).not.toContain('start rehearsal done');
  });

  it('a malformed GATEWAY_REHEARSAL_CALLS stops the start with a clear message', async () => {
    const gateway = await launch('bad', { GATEWAY_REHEARSAL_CALLS: 'many' });
    expect(await gateway.exited).toBe(1);
    expect(gateway.output()).toContain('GATEWAY_REHEARSAL_CALLS must be a whole number >= 0, not \\"many\\"');
  });
});
