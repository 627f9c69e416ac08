/**
 * A start opens a few connections to each model's upstream before it listens (src/boot/preconnect.ts):
 * by the time the health path can answer, the upstream has seen them, and no request; the first
 * calls then go out on them. An upstream that cannot be reached neither fails nor holds the start.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { hashApiKey } from '../../src/config/keys.ts';
import { createLogger } from '../../src/kernel/logger.ts';
import { startGateway, type Started } from '../../src/server.ts';
import { closedPort } from '../_setup.ts';

const KEY = 'sk-bf-preconnect-00000000000000000000000000';
const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An OpenAI-compatible upstream counting the connections it accepted and the requests it got. */
async function countingUpstream() {
  const seen = { connections: 0, requests: 0 };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.requests++;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
    });
  });
  server.on('connection', () => seen.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

async function start(endpoint: string, env: Record<string, string> = {}): Promise<Started> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-preconnect-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  const config = {
    providers: [{ id: 'up', name: 'Up', type: 'compat', endpoint, api_key: 'k', models: ['m'] }],
    models: [{ id: 'm', name: 'M', provider: 'up', context_length: 8192, input_price: 0, output_price: 0 }],
    groups: [{ id: 'g', name: 'G', priority: 0, quota_limit: 0 }],
    accounts: [{ id: 'a', email: 'a@example.com', name: 'A', role: 'member', group: 'g' }],
    keys: [{ id: 'k', name: 'K', key_hash: hashApiKey(KEY), account: 'a' }],
    routing: { retries: 0 },
  };
  await writeFile(join(dir, 'gateway.yaml'), JSON.stringify(config));
  const started = await startGateway({
    logger: createLogger('silent'),
    env: { GATEWAY_CONFIG: join(dir, 'gateway.yaml'), PORT: '0', HOST: '127.0.0.1', GATEWAY_DATA_DIR: join(dir, 'data'), REDIS_URL: '', GATEWAY_REHEARSAL_CALLS: '0', ...env },
    watch: false,
  });
  closers.push(async () => {
    await started.server.close(true);
    await started.gateway.close();
  });
  return started;
}

const chat = (started: Started) =>
  fetch(`${started.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hello' }] }),
  });

it("opens the upstream's connections before it listens, sends nothing on them, and the first calls use them", async () => {
  const upstream = await countingUpstream();
  const started = await start(upstream.url, { GATEWAY_UPSTREAM_PRECONNECT: '3' });
  // Listening now; the health path has not answered anything yet. (The upstream accepts a moment after the gateway's side connected.)
  await expect.poll(() => upstream.seen.connections).toBe(3);
  expect(upstream.seen.requests).toBe(0);
  expect((await fetch(`${started.url}/v1/system/health`)).status).toBe(200);
  const answers = await Promise.all([chat(started), chat(started), chat(started)]);
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
  expect(upstream.seen).toEqual({ connections: 3, requests: 3 });
});

it('with GATEWAY_UPSTREAM_PRECONNECT=0 the first call opens the first connection', async () => {
  const upstream = await countingUpstream();
  const started = await start(upstream.url, { GATEWAY_UPSTREAM_PRECONNECT: '0' });
  expect(upstream.seen.connections).toBe(0);
  expect((await chat(started)).status).toBe(200);
  expect(upstream.seen).toEqual({ connections: 1, requests: 1 });
});

it('an upstream that refuses connections neither fails nor holds the start', async () => {
  const started = await start(`http://127.0.0.1:${await closedPort()}/v1`);
  expect((await fetch(`${started.url}/v1/system/health`)).status).toBe(200);
  expect((await chat(started)).status).toBe(503);
});
