/**
 * The metrics port (GATEWAY_METRICS_PORT) with `server.workers: 2` (the real process, dist/
 * bundle): one listener for the group, held by the primary as the API port's is (no worker
 * refused the port), whichever worker takes a scrape answers the whole group's counts, and the
 * token (GATEWAY_METRICS_TOKEN) is asked on every worker. The API port then has no /metrics.
 */
import { mkdtemp, readFile, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatOnNewConnection, totalsOnEveryScrape } from '../_metrics-workers.ts';
import { freePort, spawnGateway, waitForOutput, waitHealthy, type GatewayProcess } from '../_process.ts';
import { startMockUpstream, type MockUpstream } from '../_setup.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TOKEN = 'metrics-scraper-token-7c1e4b';
let mock: MockUpstream;
let dir: string;
let gw: GatewayProcess;
let metricsUrl: string;
let metricsPort: number;

beforeAll(async () => {
  mock = await startMockUpstream();
  dir = await mkdtemp(join(tmpdir(), 'gw-metrics-port-'));
  metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  gw = await spawnGateway({
    GATEWAY_CONFIG: resolve('test/fixtures/metrics-workers.yaml'),
    GATEWAY_DATA_DIR: join(dir, 'data'),
    GATEWAY_WATCH: 'false',
    GATEWAY_METRICS_PORT: String(metricsPort),
    GATEWAY_METRICS_TOKEN: TOKEN,
    MOCK_URL: `${mock.url}/v1`,
    REDIS_URL,
    GATEWAY_REDIS_PREFIX: `gw-test-metrics-port-${process.pid}-${Date.now()}`,
  });
  await waitHealthy(gw);
  await waitForOutput(gw, 'gateway listening', 2);
  await waitForOutput(gw, 'metrics listening', 2);
}, 90_000);
afterAll(async () => {
  if (gw) {
    gw.child.kill('SIGTERM');
    await gw.exited;
  }
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

const chat = () => chatOnNewConnection(gw);

/** The inodes of the sockets listening on `port` (Linux: /proc/net/tcp, tcp6). */
async function listeningSockets(port: number): Promise<string[]> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const tables = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map((file) => readFile(file, 'utf8').catch(() => '')));
  return tables
    .flatMap((table) => table.split('\n').slice(1))
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A') // 0A: LISTEN
    .map((fields) => fields[9]!);
}

/** The inodes of the sockets process `pid` holds open. */
async function socketsOf(pid: number): Promise<string[]> {
  const fds = await readdir(`/proc/${pid}/fd`);
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return targets.map((target) => /^socket:\[(\d+)\]$/.exec(target)?.[1]).filter((inode) => inode !== undefined);
}

/** One scrape on a new connection (so the kernel spreads them over the workers). */
const scrape = (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
  fetch(metricsUrl, { headers: { connection: 'close', ...headers } });

const totals = (expected: number) =>
  totalsOnEveryScrape(async () => {
    const res = await scrape();
    expect(res.status).toBe(200);
    return res.text();
  }, expected);

describe('the metrics port across worker processes', { timeout: 90_000 }, () => {
  it('is one listener, the primary\'s, that both workers serve: no worker lost the port', async () => {
    expect(gw.output()).not.toMatch(/EADDRINUSE|"level":"error"/);
    const listeners = await listeningSockets(metricsPort);
    expect(listeners).toHaveLength(1);
    expect(await socketsOf(gw.child.pid!)).toContain(listeners[0]);
  });

  it('answers the whole group on every scrape, whichever worker takes it', async () => {
    const statuses = [];
    for (let i = 0; i < 9; i++) statuses.push(await chat());
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(await totals(9)).toEqual(Array(8).fill(9));
  });

  it('asks the token on every worker, and answers nothing else', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await scrape({});
      expect(res.status).toBe(401);
      expect((await res.json()).error.code).toBe('invalid_metrics_token');
    }
    const wrong = await scrape({ authorization: 'Bearer not-the-token' });
    expect(wrong.status).toBe(401);
    await wrong.text();
    const other = await fetch(metricsUrl.replace(/metrics$/, 'v1/system/health'), { headers: { connection: 'close' } });
    expect(other.status).toBe(404);
    await other.text();
    // The API port (public: true in the fixture) has no /metrics once the metrics port is set.
    const api = await fetch(`${gw.url}/metrics`, { headers: { connection: 'close' } });
    expect(api.status).toBe(404);
    await api.text();
  });
});
