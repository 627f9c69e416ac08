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
import { chatOnNewConnection, totalsOnEveryScrape } from '../_metrics-workers.ts';
import { spawnGateway, waitForOutput, waitHealthy, type GatewayProcess } from '../_process.ts';
import { startMockUpstream, type MockUpstream } from '../_setup.ts';
import { sample } from '../prometheus-sample.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
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
const listening = (count: number) => waitForOutput(gw, 'gateway listening', count);
const chat = () => chatOnNewConnection(gw);

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

const totals = (expected: number) => totalsOnEveryScrape(async () => (await scrapes(1))[0]!, expected);

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
