/**
 * The real entry point as an operator runs it (`npm start`: the dist/ bundle) in a child process.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, spawnGateway, waitHealthy } from '../_process.ts';
import { DEMO_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let mock: MockUpstream;
let dir: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  dir = await mkdtemp(join(tmpdir(), 'gw-proc-'));
});
afterAll(async () => {
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

async function launch(fixture: string, env: Record<string, string>) {
  const configFile = join(dir, `${fixture}-${Date.now()}.yaml`);
  await cp(resolve('test/fixtures', fixture), configFile);
  const gateway = await spawnGateway({ GATEWAY_CONFIG: configFile, GATEWAY_DATA_DIR: join(dir, 'data'), MOCK_URL: `${mock.url}/v1`, ...env });
  return { ...gateway, configFile };
}

const call = (url: string) =>
  fetch(`${url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });

// Child processes boot slower when the whole suite runs in parallel on two cores.
describe('the gateway process', { timeout: 90_000 }, () => {
  it('stops at once on a SIGTERM that comes while it is still starting (a log database that does not answer)', async () => {
    // Accepts and never answers: the start waits on it (up to the connect timeout).
    const sockets: Socket[] = [];
    let connected!: () => void;
    const reached = new Promise<void>((resolve) => (connected = resolve));
    const silent = createServer((socket) => {
      sockets.push(socket);
      connected();
    });
    await new Promise<void>((ok) => silent.listen(0, '127.0.0.1', ok));
    const { port } = silent.address() as { port: number };
    try {
      const gw = await launch('chat.yaml', { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test` });
      await reached;
      const sent = Date.now();
      gw.child.kill('SIGTERM');
      expect(await gw.exited).toBe(0);
      expect(Date.now() - sent).toBeLessThan(3000);
      expect(gw.output()).toMatch(/"msg":"stopped before serving"/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((done) => silent.close(done));
    }
  });

  it('reloads on SIGHUP and shuts down cleanly on SIGTERM', async () => {
    const gw = await launch('chat.yaml', { GATEWAY_WATCH: 'false' });
    try {
      await waitHealthy(gw);
      expect((await call(gw.url)).status).toBe(200);
      const file = gw.configFile;
      const text = await readFile(file, 'utf8');
      await writeFile(file, text.replace('type: compat\n    endpoint: ${MOCK_URL}\n    api_key: upstream-secret-key', 'type: compat\n    status: inactive\n    endpoint: ${MOCK_URL}\n    api_key: upstream-secret-key'));
      await new Promise((r) => setTimeout(r, 300));
      expect((await call(gw.url)).status).toBe(200); // no watcher: nothing changed yet
      gw.child.kill('SIGHUP');
      const deadline = Date.now() + 5000;
      let status = 200;
      while (Date.now() < deadline && status === 200) {
        status = (await call(gw.url)).status;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe(404);
      gw.child.kill('SIGTERM');
      expect(await gw.exited).toBe(0);
    } finally {
      gw.child.kill('SIGKILL');
    }
  });

  it('loads a TypeScript custom plugin (the README example) into the bundle', async () => {
    const gw = await launch('custom-plugin.yaml', { GATEWAY_WATCH: 'false', EXAMPLES_DIR: resolve('examples') });
    try {
      await waitHealthy(gw);
      const ask = (user: string) =>
        fetch(`${gw.url}/api/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], user }),
        });
      const allowed = await ask('alice');
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get('x-checked-by')).toBe('block-users');
      const blocked = await ask('mallory');
      expect(blocked.status).toBe(403);
      expect((await blocked.json()).error).toMatchObject({ code: 'user_blocked' });
    } finally {
      gw.child.kill('SIGTERM');
      await gw.exited;
    }
  });

  it('says in its JSON log, like everything else it writes, that Redis is unreachable', async () => {
    const closed = await freePort();
    const gw = await launch('chat.yaml', { REDIS_URL: `redis://127.0.0.1:${closed}`, GATEWAY_WATCH: 'false' });
    try {
      await waitHealthy(gw);
      expect((await call(gw.url)).status).toBe(200); // served on local state
      await expect.poll(() => gw.output(), { timeout: 10_000 }).toContain('redis) unavailable');
      const lines = gw.output().split('\n').filter((line) => line.trim());
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      expect(lines.some((line) => JSON.parse(line).level === 'warn' && /redis/i.test(JSON.parse(line).msg))).toBe(true);
    } finally {
      gw.child.kill('SIGTERM');
      await gw.exited;
    }
  });

  it('refuses several workers without REDIS_URL', async () => {
    const gw = await launch('workers.yaml', { REDIS_URL: '' });
    expect(await gw.exited).toBe(1);
    expect(gw.output()).toContain('server.workers is 2: several workers need REDIS_URL');
  });

  it('runs several workers on one port sharing one key limit through Redis', async () => {
    const prefix = `gw-test-${process.pid}-${Date.now()}`;
    const gw = await launch('workers.yaml', { REDIS_URL, GATEWAY_REDIS_PREFIX: prefix });
    try {
      await waitHealthy(gw);
      const statuses = [];
      for (let i = 0; i < 8; i++) statuses.push((await call(gw.url)).status);
      // rate_limit: 5 per minute for the key, counted once across both workers.
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(3);
      const deadline = Date.now() + 45_000;
      while (Date.now() < deadline && (gw.output().match(/gateway listening/g)?.length ?? 0) < 2) await new Promise((r) => setTimeout(r, 100));
      expect(gw.output().match(/gateway listening/g)?.length).toBe(2);
    } finally {
      gw.child.kill('SIGTERM');
      await gw.exited;
    }
  });
});
