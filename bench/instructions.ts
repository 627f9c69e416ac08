/**
 * The gateway's work per request counted in instructions, not seconds: each build runs under
 * `valgrind --tool=callgrind` against the bench's mock, takes `--warm` requests, then callgrind's
 * counters are zeroed, `--requests` more are sent and the counters dumped. What a machine with a
 * busy neighbour or a hypervisor's steal time does to `ab.ts` (±25 % between rounds on the
 * slow machines of issue 37) does not move an instruction count. V8's compiler and GC threads
 * still do their work when they do, so one build's count moves by 5-10 % between runs: compare
 * builds in interleaved pairs, and repeat.
 *
 *   npx tsx bench/instructions.ts [--stream] [--warm 1500] [--requests 1000] [--rounds 1] name=entry[@node-flags][#VAR=value,...] ... [floor]
 *
 * Prints instructions per request for each build: the whole process, its main thread and its
 * other threads (the call-log worker, V8's compiler and GC helpers). An instruction is not a
 * nanosecond (a cache miss or a system call costs more than its count), and V8 under valgrind
 * tiers up later than at full speed, so read a count beside `ab.ts`, not instead of it.
 * Start-up under valgrind takes a minute or two per build, a build's run about five minutes.
 * INSTRUCTIONS_THREADS=1 prints each thread's count as well.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { Pool } from 'undici';
import { startNodeFlags } from '../scripts/start-args.ts';
import { benchGatewayEnv, freePort, parseVariant, serving, spawnChild, startMock, type Child } from './processes.ts';
import { BENCH_KEY, requestBody, target, type Target } from './targets.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    stream: { type: 'boolean', default: false },
    warm: { type: 'string', default: '1500' },
    requests: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '1' },
  },
});
const CONCURRENCY = 8;
const specs = positionals.length ? positionals : ['now=dist/main.mjs'];

/** Valgrind in front of node: JIT code rewrites itself, so every write to code is checked. */
function valgrindArgs(outFile: string): string[] {
  return ['--tool=callgrind', '--smc-check=all-non-file', '--separate-threads=yes', `--callgrind-out-file=${outFile}`];
}

async function startUnderValgrind(spec: string, mockPort: number, dir: string): Promise<Child & { url: string }> {
  const port = await freePort();
  const out = join(dir, 'callgrind.out');
  if (spec === 'floor') {
    const child = spawnChild('floor', 'valgrind', [...valgrindArgs(out), process.execPath, '--import', 'tsx', 'bench/floor-proxy.ts'], {
      cwd: ROOT,
      env: { HOST: '127.0.0.1', PORT: String(port), UPSTREAM: `http://127.0.0.1:${mockPort}/v1/chat/completions` },
    });
    return serving(child, port, '/', 600_000);
  }
  const variant = parseVariant(spec);
  const child = spawnChild(variant.name, 'valgrind', [...valgrindArgs(out), process.execPath, ...startNodeFlags(), ...variant.nodeArgs, resolve(ROOT, variant.entry)], {
    cwd: ROOT,
    env: benchGatewayEnv({ port, dataDir: dir, mockUrl: `http://127.0.0.1:${mockPort}`, env: variant.env }),
  });
  return serving(child, port, '/v1/system/health', 600_000);
}

/**
 * Chat calls, CONCURRENCY at a time, each read to its end, until `stop()`; any failure stops the
 * run. The load goes on while callgrind's counters are zeroed and dumped: a process idle in
 * epoll_wait never reads callgrind_control's command, so the window is counted in answers
 * completed between the two commands (the few in flight at each edge about cancel out).
 */
function load(t: Target) {
  const url = new URL(t.url);
  const pool = new Pool(url.origin, { connections: CONCURRENCY, keepAliveTimeout: 600_000, headersTimeout: 0, bodyTimeout: 0 });
  const body = requestBody(values.stream);
  let done = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped) {
      const answer = await pool.request({ path: url.pathname, method: 'POST', headers: t.headers, body });
      const text = await answer.body.text();
      if (answer.statusCode !== 200) throw new Error(`HTTP ${answer.statusCode}: ${text.slice(0, 200)}`);
      done++;
    }
  };
  const running = Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return {
    done: () => done,
    /** Resolves once `count` answers have completed in all (rejects if the load failed). */
    async reach(count: number) {
      while (done < count) await Promise.race([running, new Promise((r) => setTimeout(r, 20))]);
    },
    async stop() {
      stopped = true;
      await running.finally(() => pool.close());
    },
  };
}

/**
 * callgrind_control answers 0 even when the command did not arrive: its output says. Valgrind
 * names its control pipes after $HOST, which the gateway's environment sets to 127.0.0.1.
 */
async function control(command: '-z' | '-d', pid: string): Promise<void> {
  const { stdout, stderr } = await run('callgrind_control', [command, pid], { env: { ...process.env, HOST: '127.0.0.1' } });
  if (!/OK\./.test(stdout)) throw new Error(`callgrind_control ${command} ${pid}: ${stdout}${stderr}`);
}

/** Instructions by thread in the dump files callgrind wrote after `callgrind_control -d`. */
async function dumpedThreads(dir: string): Promise<number[]> {
  // With --separate-threads, a dump is one file per thread: callgrind.out.<dump>-<thread>.
  const files = (await readdir(dir)).filter((name) => /^callgrind\.out\.1-\d+$/.test(name)).sort();
  return Promise.all(files.map(async (name) => Number(/^totals: (\d+)/m.exec(await readFile(join(dir, name), 'utf8'))?.[1] ?? 0)));
}

async function waitForDump(dir: string): Promise<number[]> {
  for (let tries = 0; tries < 60; tries++) {
    const threads = await dumpedThreads(dir).catch(() => []);
    if (threads[0]) {
      // Each thread's file is written in turn: read them again once the first is there.
      await new Promise((r) => setTimeout(r, 2000));
      return dumpedThreads(dir);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`callgrind wrote no dump: ${(await readdir(dir)).join(' ')}`);
}

async function measure(spec: string, mockPort: number): Promise<{ total: number; main: number; others: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-instr-'));
  const child = await startUnderValgrind(spec, mockPort, dir);
  try {
    const pid = String(child.proc.pid);
    // As ab.ts calls each: the floor relays to the mock's path, the gateway serves the API under /api.
    const t = spec === 'floor'
      ? target('floor', `${child.url}/v1/chat/completions`, { authorization: 'Bearer bench-upstream-key' })
      : target(spec, `${child.url}/api/v1/chat/completions`, { authorization: `Bearer ${BENCH_KEY}` });
    const calls = load(t);
    let counted: number;
    try {
      await calls.reach(Number(values.warm));
      await control('-z', pid);
      const first = calls.done();
      await calls.reach(first + Number(values.requests));
      await control('-d', pid);
      counted = calls.done() - first;
    } finally {
      await calls.stop();
    }
    // Thread 1 is the main thread; the rest are the log worker and V8's and libuv's helpers.
    const [main = 0, ...others] = await waitForDump(dir);
    const perRequest = (n: number) => n / counted;
    const otherSum = others.reduce((a, b) => a + b, 0);
    if (process.env.INSTRUCTIONS_THREADS) console.error(`  ${spec}: by thread ${[main, ...others].map((n) => `${(perRequest(n) / 1000).toFixed(0)}k`).join(' ')}`);
    return { total: perRequest(main + otherSum), main: perRequest(main), others: perRequest(otherSum) };
  } finally {
    await child.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const mock = await startMock();
try {
  const results = new Map<string, Array<{ total: number; main: number; others: number }>>();
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const spec of round % 2 === 0 ? specs : [...specs].reverse()) {
      const name = spec === 'floor' ? 'floor' : parseVariant(spec).name;
      console.error(`round ${round + 1}: ${name}`);
      const result = await measure(spec, mock.port);
      results.set(name, [...(results.get(name) ?? []), result]);
    }
  }
  const k = (n: number) => `${(n / 1000).toFixed(0)}k`;
  console.log(`${values.stream ? 'streamed' : 'plain'} calls, about ${values.requests} counted (the answers completed between zero and dump) after ${values.warm}, ${CONCURRENCY} at a time; instructions per request:`);
  for (const [name, runs] of results) {
    const list = (pick: (r: { total: number; main: number; others: number }) => number) => runs.map((r) => k(pick(r))).join(', ');
    console.log(`  ${name.padEnd(14)} total ${list((r) => r.total)}, main thread ${list((r) => r.main)}, other threads ${list((r) => r.others)}`);
  }
} finally {
  await mock.stop();
}
