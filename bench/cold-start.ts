/**
 * A cold gateway under load: start a fresh process, wait for its readiness (the health path the
 * Kubernetes readinessProbe uses) and send a fixed rate from that moment on, timing every request
 * by the second it was sent in. What runs the first time (lazy loading, compiling, opening stores,
 * a first flush) shows as a slow first second; the aim (issue 37) is a p99 within 2x of the warm
 * one from the first request on. Builds are started in turn, several times each (a fresh process
 * per start), and the p99 of each second is the median over the starts.
 *
 *   npx tsx bench/cold-start.ts [--rate 1000] [--seconds 6] [--starts 4] [--deopts] name=entry ... (default now=dist/main.mjs)
 *
 * To see where a slow second comes from: COLD_THREADS=1 prints the CPU of every other thread of
 * the process in each second (V8's compiler and GC helpers, the log worker), COLD_SLOW=<ms> each
 * request slower than that with the moment it was sent, BENCH_CHILD_LOG=<dir> keeps what the
 * gateway prints (with `name=dist/main.mjs@--trace-opt --trace-deopt`, what V8 compiled when).
 *
 * --deopts runs each gateway with `--trace-deopt` and counts the functions V8 throws back out of
 * optimized code after readiness: what the start rehearsal taught V8 that real calls then
 * contradict (bench/README.md, issue 37, seventh session). A count, so steadier than the p99.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { quantile } from './percentile.ts';
import { threadCpu } from './thread-cpu.ts';
import { parseVariant, startBenchGateway, startFloor, startMock } from './processes.ts';
import { BENCH_KEY, requestBody, target, type Target } from './targets.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '6' },
    starts: { type: 'string', default: '4' },
    deopts: { type: 'boolean', default: false },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const starts = Number(values.starts);
const specs = positionals.length ? positionals : ['now=dist/main.mjs'];

/** One fixed-rate run from the first moment of readiness: latencies by the second they were sent in. */
async function coldRun(t: Target, pid: number | undefined): Promise<{ bySecond: number[][]; cpuBySecond: number[]; failures: number }> {
  const url = new URL(t.url);
  const pool = new Pool(url.origin, { connections: 256, pipelining: 1, keepAliveTimeout: 30_000 });
  const body = requestBody(false);
  const bySecond: number[][] = Array.from({ length: seconds }, () => []);
  let failures = 0;
  const inFlight = new Set<Promise<void>>();
  const total = Math.round(rate * seconds);
  const interval = 1000 / rate;
  const start = performance.now();
  let issued = 0;
  // The main thread's CPU (ms) in each second: less noisy than latency on a shared machine.
  const cpuBySecond: number[] = [];
  const sampler = (async () => {
    if (!pid) return;
    let last = await threadCpu(pid);
    for (let i = 1; i <= seconds; i++) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + i * 1000 - performance.now())));
      const now = await threadCpu(pid).catch(() => last);
      cpuBySecond.push(((now.get('main') ?? 0) - (last.get('main') ?? 0)) / 1000);
      if (process.env.COLD_THREADS) {
        const others = [...now].filter(([name]) => name !== 'main').map(([name, us]) => [name, (us - (last.get(name) ?? 0)) / 1000] as const).filter(([, ms]) => ms > 0);
        console.error(`  s${i} threads: ${others.map(([name, ms]) => `${name} ${ms.toFixed(0)}`).join(', ')}`);
      }
      last = now;
    }
  })();
  while (issued < total) {
    const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
    for (; issued < due; issued++) {
      const sent = performance.now();
      const second = Math.min(seconds - 1, Math.floor((sent - start) / 1000));
      const done = pool
        .request({ method: 'POST', path: url.pathname, headers: t.headers, body })
        .then(async (response) => {
          await response.body.arrayBuffer();
          const took = performance.now() - sent;
          if (response.statusCode === 200) bySecond[second]!.push(took);
          else failures++;
          if (process.env.COLD_SLOW && took > Number(process.env.COLD_SLOW)) console.error(`  slow: sent at ${(sent - start).toFixed(0)} ms, took ${took.toFixed(1)} ms`);
        })
        .catch(() => void failures++)
        .finally(() => inFlight.delete(done));
      inFlight.add(done);
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  await sampler;
  await pool.close();
  return { bySecond, cpuBySecond, failures };
}

/** What the mock (and the floor in front of it) expect as the upstream key. */
const UPSTREAM_AUTH = 'Bearer bench-upstream-key';

/**
 * The harness's own client warmed before a cold run: requests straight to the (long warm) mock,
 * so undici's code in this process is compiled and optimized. Cold, it added its own first-second
 * stall to every target alike (the floor's first second read 40-700 ms), hiding the gateway's.
 */
async function warmHarness(mockPort: number): Promise<void> {
  const pool = new Pool(`http://127.0.0.1:${mockPort}`, { connections: 50, pipelining: 1 });
  const body = requestBody(false);
  const worker = async () => {
    for (let i = 0; i < 100; i++) {
      const response = await pool.request({ method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json', authorization: UPSTREAM_AUTH }, body });
      await response.body.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 50 }, worker));
  await pool.close();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const p = (samples: number[], q: number) => quantile(Float64Array.from(samples).sort(), q);

const mock = await startMock();
/** Counts the `--trace-deopt` lines a child writes from now on, by function; the returned stop ends it. */
function countDeopts(proc: ChildProcess): () => Map<string, number> {
  const byFunction = new Map<string, number>();
  let carry = '';
  const read = (data: Buffer) => {
    const lines = (carry + data.toString('utf8')).split('\n');
    carry = lines.pop()!;
    for (const line of lines) {
      const fn = /^\[bailout \(kind: [^)]*\): begin\. deoptimizing \S+ <JSFunction (\S*)/.exec(line)?.[1];
      if (fn === undefined) continue;
      const name = fn.startsWith('(') ? '(anonymous)' : fn; // V8 writes `(sfi = 0x…)` for those
      byFunction.set(name, (byFunction.get(name) ?? 0) + 1);
    }
  };
  proc.stdout?.on('data', read);
  return () => {
    proc.stdout?.off('data', read);
    return byFunction;
  };
}

const results = new Map<string, { p99: number[][]; cpu: number[][]; max: number[]; first: number[]; failures: number; deopts: Array<Map<string, number>> }>();
try {
  for (let round = 0; round < starts; round++) {
    for (const spec of specs) {
      const { name, entry, nodeArgs, env } = parseVariant(spec);
      const dataDir = await mkdtemp(join(tmpdir(), 'gw-cold-'));
      const child =
        entry === 'floor'
          ? await startFloor(`http://127.0.0.1:${mock.port}/v1/chat/completions`)
          : await startBenchGateway({ name, entry: resolve(ROOT, entry), mockUrl: `http://127.0.0.1:${mock.port}`, dataDir, nodeArgs: values.deopts ? [...nodeArgs, '--trace-deopt'] : nodeArgs, env });
      const t = entry === 'floor' ? target(name, `${child.url}/v1/chat/completions`, { authorization: UPSTREAM_AUTH }) : target(name, `${child.url}/api/v1/chat/completions`, { authorization: `Bearer ${BENCH_KEY}` });
      await warmHarness(mock.port);
      const stopCounting = values.deopts ? countDeopts(child.proc) : undefined;
      const run = await coldRun(t, child.proc.pid);
      const deopts = stopCounting?.();
      await child.stop();
      await rm(dataDir, { recursive: true, force: true });
      const entryResult = results.get(name) ?? { p99: Array.from({ length: seconds }, () => []), cpu: Array.from({ length: seconds }, () => []), max: [], first: [], failures: 0, deopts: [] };
      run.bySecond.forEach((samples, i) => entryResult.p99[i]!.push(p(samples, 0.99)));
      run.cpuBySecond.forEach((ms, i) => entryResult.cpu[i]!.push(ms));
      entryResult.max.push(p(run.bySecond[0]!, 1));
      entryResult.first.push(run.bySecond[0]![0] ?? NaN);
      entryResult.failures += run.failures;
      if (deopts) entryResult.deopts.push(deopts);
      results.set(name, entryResult);
      console.error(`start ${round + 1}/${starts} ${name}: p99 by second ${run.bySecond.map((s) => p(s, 0.99).toFixed(1)).join(' ')} ms`);
    }
  }
} finally {
  await mock.stop();
}

console.log(`${rate} req/s from readiness on, ${starts} fresh starts each; p99 of each second (ms) and the main thread's CPU in it (ms), medians over the starts:`);
for (const [name, r] of results) {
  const bySecond = r.p99.map(median);
  const warm = median(bySecond.slice(Math.max(1, seconds - 3)));
  console.log(
    `  ${name.padEnd(12)} ${bySecond.map((v) => v.toFixed(2)).join(' | ')}  first second's max ${median(r.max).toFixed(1)}, ` +
      `first answer ${median(r.first).toFixed(1)}; first/warm ×${(bySecond[0]! / warm).toFixed(1)}${r.failures ? `; ${r.failures} failed` : ''}`,
  );
  console.log(`  ${''.padEnd(12)} CPU ${r.cpu.map(median).map((v) => v.toFixed(0)).join(' | ')}`);
  if (r.deopts.length) {
    const totals = r.deopts.map((byFunction) => [...byFunction.values()].reduce((a, b) => a + b, 0));
    const merged = new Map<string, number>();
    for (const byFunction of r.deopts) for (const [fn, n] of byFunction) merged.set(fn, (merged.get(fn) ?? 0) + n);
    const most = [...merged].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([fn, n]) => `${fn} ${n}`);
    console.log(`  ${''.padEnd(12)} deopts after readiness: median ${median(totals)} (${totals.join(', ')}); over all starts: ${most.join(', ')}`);
  }
}
