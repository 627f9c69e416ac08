/**
 * Slow clients do not starve the others: with hundreds of connections open to the real process
 * (idle, headers half-sent, or a body announced and never finished, on inference and management
 * routes), a normal call is still answered within a second.
 */
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, waitHealthy, type GatewayProcess } from '../_process.ts';
import { DEMO_KEY, MASTER_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';

const EACH = 100;
let mock: MockUpstream;
let dir: string;
let gateway: GatewayProcess;
const sockets: Socket[] = [];

beforeAll(async () => {
  mock = await startMockUpstream();
  dir = await mkdtemp(join(tmpdir(), 'gw-slow-'));
  const configFile = join(dir, `slow-${randomUUID()}.yaml`);
  await cp(resolve('test/fixtures/durability.yaml'), configFile);
  gateway = await spawnGateway({ GATEWAY_CONFIG: configFile, GATEWAY_MASTER_KEY: MASTER_KEY, GATEWAY_WATCH: 'false', MOCK_URL: `${mock.url}/v1`, REDIS_URL: '', DATABASE_URL: '', GATEWAY_DATA_DIR: join(dir, 'data') });
  await waitHealthy(gateway);
}, 60_000);
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  gateway?.child.kill('SIGTERM');
  await gateway?.exited;
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Opens a connection and writes `text` (maybe nothing), then leaves it open. */
function openSlow(text: string): Promise<void> {
  const { port } = new URL(gateway.url);
  return new Promise((done, fail) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      if (text) socket.write(text);
      done();
    });
    socket.on('error', () => {}); // the server may close a slow client; that is its right
    socket.once('error', fail);
    sockets.push(socket);
  });
}

async function timedCall(path: string, body: unknown, key = DEMO_KEY): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.text();
  return { status: res.status, ms: performance.now() - started };
}

describe('slow clients', () => {
  it('hundreds of idle and half-sent connections do not delay a normal call past a second', async () => {
    const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };
    // Warm up first, so the measure is about the slow clients, not the first call's compilation.
    expect((await timedCall('/api/v1/chat/completions', chat)).status).toBe(200);
    const before = await timedCall('/v1/api-keys', { name: 'before slow clients' });
    expect(before.status).toBe(201);
    console.info(`before: key created in ${Math.round(before.ms)} ms`);
    const headers = (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${DEMO_KEY}\r\nContent-Type: application/json\r\n`;
    await Promise.all([
      ...Array.from({ length: EACH }, () => openSlow('')),
      ...Array.from({ length: EACH }, (_, i) => openSlow(headers(i % 2 ? '/api/v1/chat/completions' : '/v1/api-keys'))),
      ...Array.from({ length: EACH }, (_, i) => openSlow(`${headers(i % 2 ? '/api/v1/chat/completions' : '/v1/api-keys')}Content-Length: 5000\r\n\r\n{"model":`)),
    ]);
    const calls = [
      await timedCall('/api/v1/chat/completions', chat),
      await timedCall('/v1/api-keys', { name: 'while slow clients wait' }),
      await timedCall('/api/v1/chat/completions', chat, MASTER_KEY),
    ];
    console.info(`with ${3 * EACH} slow connections open: ${calls.map((c) => `${c.status} in ${Math.round(c.ms)} ms`).join(', ')}`);
    expect(calls.map((c) => c.status)).toEqual([200, 201, 200]);
    for (const call of calls) expect(call.ms).toBeLessThan(1000);
  }, 60_000);
});
