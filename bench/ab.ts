/**
 * A/B probe: CPU per request of two or more gateway builds or node flag sets, measured in
 * interleaved rounds against one mock, so that the machine's drift hits every variant alike.
 * Each round loads one variant at saturation (autocannon, 64 connections) and reads all its
 * threads' CPU time from /proc (the main thread's and the busiest other one's, the log worker,
 * shown apart); the medians over the rounds are what to compare. Every variant
 * runs with `npm start`'s node flags, then its own (a later V8 flag wins).
 *
 * With --paced, each round sends 500 requests/s (bench/paced.ts) instead, to the mock directly as
 * well, after one untimed paced run per variant, and the medians of each round's p50 and p99 are
 * what to compare (the tail aim).
 *
 * With --stream, each round reads streams to their end, 50 at a time (bench/streams.ts): streams
 * per second, CPU per stream, and the p50 of the first byte.
 *
 * With --keys N, the gateways run the bench config with N keys over N/4 accounts (unless a
 * variant sets its own GATEWAY_CONFIG) and the plain and streamed loads rotate through the keys
 * (bench/multi-key.ts; the paced one calls with the first): what the call log pays per key shows,
 * which the one-key config hides.
 *
 *   npx tsx bench/ab.ts [--seconds 3] [--rounds 8] [--paced|--stream] name=entry[@node-flags][#VAR=value,...] ...
 *   e.g. cp -r dist dist-before && (change, npm run build) &&
 *        npx tsx bench/ab.ts before=dist-before/main.mjs after=dist/main.mjs
 *        npx tsx bench/ab.ts plain=dist/main.mjs big-young=dist/main.mjs@--max-semi-space-size=64
 *        npx tsx bench/ab.ts --rounds 3 now=dist/main.mjs    (one build: its CPU per request)
 *        npx tsx bench/ab.ts floor=floor now=dist/main.mjs   (the entry `floor`: bench/floor-proxy.ts)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { processCpu, threadCpu } from './thread-cpu.ts';
import { parseVariant, startBenchGateway, startFloor, startMock, type Child } from './processes.ts';
import { BENCH_KEY, target, type Target } from './targets.ts';
import { autocannonRun } from './throughput.ts';
import { pacedRun } from './paced.ts';
import { streamLoad } from './streams.ts';
import { writeMultiKeyConfig } from './multi-key.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { seconds: { type: 'string', default: '3' }, rounds: { type: 'string', default: '8' }, paced: { type: 'boolean', default: false }, stream: { type: 'boolean', default: false }, keys: { type: 'string', default: '1' } },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
if (positionals.length < 1) {
  console.error('usage: npx tsx bench/ab.ts [--seconds 3] [--rounds 8] [--paced|--stream] [--keys N] name=entry[@node-flags][#VAR=value,...] ...');
  process.exit(2);
}

interface Variant {
  name: string;
  child?: Child;
  target: Target;
  rps: number[];
  cpu: number[];
  main: number[];
  p50: number[];
  p99: number[];
  /** CPU µs per request of the busiest thread other than main (the SQLite log worker). */
  busiest: number[];
  /** CPU µs per request of the mock upstream and of this process (the load generator). */
  mock: number[];
  load: number[];
}

/** One round of streams, 50 at a time, in the shape of the other loads' results. */
async function streamRound(t: Target) {
  const result = await streamLoad(t, { concurrency: 50, warmupSeconds: 0, seconds });
  return { rps: result.streamsPerSecond, p50: result.firstByte.p50, p99: result.firstByte.p99 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const mock = await startMock();
const dataDirs: string[] = [];
const variants: Variant[] = [];
const keys = Number(values.keys);
/** A fresh temp dir, removed at the end. */
const tempDir = async (prefix: string) => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dataDirs.push(dir);
  return dir;
};
try {
  const manyKeys = keys > 1 ? await writeMultiKeyConfig(await tempDir('gw-ab-config-'), keys) : undefined;
  for (const spec of positionals) {
    const { name, entry, nodeArgs, env } = parseVariant(spec);
    const dataDir = await tempDir('gw-ab-');
    const isFloor = entry === 'floor';
    const child = isFloor
      ? await startFloor(`http://127.0.0.1:${mock.port}/v1/chat/completions`)
      : await startBenchGateway({
          name, entry: resolve(ROOT, entry), mockUrl: `http://127.0.0.1:${mock.port}`, dataDir, nodeArgs,
          env: manyKeys ? { GATEWAY_CONFIG: manyKeys.file, ...env } : env,
        });
    const t = isFloor
      ? target(name, `${child.url}/v1/chat/completions`, { authorization: 'Bearer bench-upstream-key' })
      : target(name, `${child.url}/api/v1/chat/completions`, { authorization: `Bearer ${BENCH_KEY}` }, manyKeys?.headerSets);
    if (values.stream) await streamRound(t); // warm-up
    else await autocannonRun(t, { connections: 64, seconds: 2 }); // warm-up
    variants.push({ name, child, target: t, rps: [], cpu: [], main: [], p50: [], p99: [], busiest: [], mock: [], load: [] });
  }
  if (values.paced) {
    const direct = target('direct', `http://127.0.0.1:${mock.port}/v1/chat/completions`);
    variants.unshift({ name: 'direct', target: direct, rps: [], cpu: [], main: [], p50: [], p99: [], busiest: [], mock: [], load: [] });
  }
  // One-at-a-time requests take paths saturation barely used: let V8 compile them before timing.
  if (values.paced) for (const v of variants) await pacedRun(v.target, { rate: 500, seconds: 2 * seconds });
  for (let round = 0; round < rounds; round++) {
    // Alternate the order each round, so no variant always runs after the same neighbour.
    const order = round % 2 === 0 ? variants : [...variants].reverse();
    for (const v of order) {
      const pid = v.child?.proc.pid;
      const before = pid ? await threadCpu(pid) : new Map<string, number>();
      const mockBefore = await processCpu(mock.proc.pid!);
      const loadBefore = process.cpuUsage();
      const result = values.paced
        ? await pacedRun(v.target, { rate: 500, seconds })
        : values.stream
          ? await streamRound(v.target)
          : await autocannonRun(v.target, { connections: 64, seconds });
      const loadSpent = process.cpuUsage(loadBefore);
      const mockSpent = (await processCpu(mock.proc.pid!)) - mockBefore;
      const after = pid ? await threadCpu(pid) : new Map<string, number>();
      v.p50.push(result.p50);
      v.p99.push(result.p99);
      const served = result.rps * seconds;
      let total = 0;
      let busiest = 0;
      for (const [thread, us] of after) {
        const spent = us - (before.get(thread) ?? 0);
        total += spent;
        if (thread !== 'main') busiest = Math.max(busiest, spent);
      }
      v.busiest.push(busiest / served);
      v.mock.push(mockSpent / served);
      v.load.push((loadSpent.user + loadSpent.system) / served);
      v.rps.push(result.rps);
      v.cpu.push(total / served);
      v.main.push(((after.get('main') ?? 0) - (before.get('main') ?? 0)) / served);
    }
    process.stderr.write(`round ${round + 1}/${rounds}\n`);
  }
  console.log(`${rounds} interleaved rounds of ${seconds} s, medians (min–max):`);
  for (const v of variants) {
    const range = (xs: number[], digits = 0) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
    const load = values.paced
      ? `p50 ${range(v.p50, 2)} ms, p99 ${range(v.p99, 2)} ms`
      : values.stream
        ? `${range(v.rps)} streams/s, first byte p50 ${range(v.p50, 2)} ms`
        : `${range(v.rps)} req/s`;
    const cpu = v.child ? `, CPU ${range(v.cpu)} µs/request, main thread ${range(v.main)}, busiest other thread ${range(v.busiest)}` : '';
    const others = values.paced ? '' : `; mock ${range(v.mock)}, load generator ${range(v.load)} µs/request`;
    console.log(`  ${v.name.padEnd(14)} ${load}${cpu}${others}`);
  }
} finally {
  for (const v of variants) await v.child?.stop();
  await mock.stop();
  for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
}
