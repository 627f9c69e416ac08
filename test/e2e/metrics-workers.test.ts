/**
 * GET /metrics with `server.workers: 2` (the real process, dist/ bundle): whichever worker takes
 * the scrape answers the whole group's counts, summed, and a worker that crashed leaves its
 * counts in the sum instead of making the counters go down.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, waitHealthy, type GatewayProcess } from '../_process.ts';
import { DEMO_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';
import { sample } from '../prometheus-sample.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SERIES = { model: 'mock/gpt-4o-mini', provider: 'mock', endpoint: 'chat', status: '200', outcome: 'ok' };
let mock: MockUpstream;
let dir: string;
let gw: GatewayProcess;

beforeAll(async () => {
  mock = await startMockUpstream();
  dir = await mkdtemp(join(tmpdir(), 'gw-metrics-workers-'));
  const configFile = join(dir, 'gateway.yaml');
  await cp(resolve('test/fixtures/metrics-workers.yaml'), configFile);
  gw = await spawnGateway({
    GATEWAY_CONFIG: configFile,
    GATEWAY_DATA_DIR: join(dir, 'data'),
    GATEWAY_WATCH: 'false',
    MOCK_URL: `${mock.url}/v1`,
    REDIS_URL,
    GATEWAY_REDIS_PREFIX: `gw-test-metrics-${process.pid}-${Date.now()}`,
  });
  await waitHealthy(gw);
  await listening(2);
}, 90_000);
afterAll(async () => {
  if (gw) {
    gw.child.kill('SIGTERM');
    await gw.exited;
  }
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Resolve once `count` workers have logged that they listen. */
async function listening(count: number) {
  const deadline = Date.now() + 45_000;
  while ((gw.output().match(/gateway listening/g)?.length ?? 0) < count) {
    if (Date.now() > deadline) throw new Error(`fewer than ${count} workers listening:\n${gw.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function chat() {
  const res = await fetch(`${gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ model: 'mock/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  await res.text();
  return res.status;
}

/** `times` scrapes, each on a new connection (so the kernel spreads them over the workers). */
async function scrapes(times: number) {
  const texts = [];
  for (let i = 0; i < times; i++) {
    const res = await fetch(`${gw.url}/metrics`, { headers: { connection: 'close' } });
    expect(res.status).toBe(200);
    texts.push(await res.text());
  }
  return texts;
}

/** Poll until every one of a round of scrapes reads `total` requests (observers run after the last byte). */
async function totals(expected: number) {
  let read: number[] = [];
  for (const deadline = Date.now() + 5000; Date.now() < deadline; ) {
    read = (await scrapes(8)).map((text) => sample(text, 'gateway_requests_total', SERIES));
    if (read.every((n) => n === expected)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return read;
}

describe('metrics across worker processes', { timeout: 90_000 }, () => {
  it('answers the whole group on every scrape, whichever worker takes it', async () => {
    const statuses = [];
    for (let i = 0; i < 13; i++) statuses.push(await chat());
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(await totals(13)).toEqual(Array(8).fill(13));
    const [text] = await scrapes(1);
    // Histograms are summed per series and bucket, labels kept.
    expect(sample(text!, 'gateway_request_duration_seconds_count', { model: 'mock/gpt-4o-mini', provider: 'mock', endpoint: 'chat' })).toBe(13);
    expect(sample(text!, 'gateway_request_duration_seconds_bucket', { le: '+Inf', model: 'mock/gpt-4o-mini', provider: 'mock', endpoint: 'chat' })).toBe(13);
    expect(sample(text!, 'gateway_tokens_total', { model: 'mock/gpt-4o-mini', provider: 'mock', kind: 'prompt' })).toBeGreaterThan(0);
    expect(text).toMatch(/^gateway_log_queue_depth \d+$/m);
    expect(text).toMatch(/^gateway_log_queue_dropped_total \d+$/m);
    // The runtime metrics of both workers, aggregated as prom-client defines for each.
    expect(sample(text!, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).not.toContain('worker');
  });

  it('keeps a crashed worker\'s counts in the sum, so the counters never go down', async () => {
    await scrapes(1); // the primary now holds both workers' totals
    const workers = execFileSync('ps', ['-o', 'pid=', '--ppid', String(gw.child.pid)], { encoding: 'utf8' }).trim().split(/\s+/).map(Number);
    expect(workers).toHaveLength(2);
    process.kill(workers[0]!, 'SIGKILL');
    await listening(3); // the primary started a replacement
    expect(await totals(13)).toEqual(Array(8).fill(13));
    for (let i = 0; i < 5; i++) expect(await chat()).toBe(200);
    expect(await totals(18)).toEqual(Array(8).fill(18));
  });
});
