/**
 * Where the gateway's CPU goes, as the CPU sees it: `perf record -e cpu-clock -g` on the gateway
 * (or the floor) under load, JIT frames named through `--perf-basic-prof`. V8's own profiler
 * (`profile-load.ts`) samples wall time, so a thread asleep in a system call, or preempted by the
 * process it just woke, counts in that call; this one counts only time spent on a CPU, and shows
 * which JavaScript frame called into V8's C++ runtime (a slow path worth removing: bench/README.md,
 * sixth session).
 *
 * Prints: the share of each binary (kernel, node, JIT code, native addons), the main thread's
 * samples by the nearest JavaScript frame (what a frame costs with the builtins and C++ it calls),
 * and the runtime calls (`Runtime_*`, `Builtin_*`) by the frame that made them.
 *
 *   npx tsx bench/perf-profile.ts [--stream] [--floor] [--config other.yaml] [--seconds 6] [--top 40]
 *
 * --config runs the gateway on another config than bench/gateway.bench.yaml (e.g. a shorter
 * `pipeline:`, to see what the steps left cost).
 *
 * Needs Linux `perf` (Debian's linux-perf); hardware counters are not needed (cpu-clock).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startBenchGateway, startFloor, startMock } from './processes.ts';
import { BENCH_KEY, target } from './targets.ts';
import { autocannonRun } from './throughput.ts';
import { streamLoad } from './streams.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    stream: { type: 'boolean', default: false },
    floor: { type: 'boolean', default: false },
    config: { type: 'string' },
    seconds: { type: 'string', default: '6' },
    top: { type: 'string', default: '40' },
  },
});
const seconds = Number(values.seconds);
const top = Number(values.top);
try {
  execFileSync('perf', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('perf is not installed (Debian: apt-get install linux-perf)');
  process.exit(2);
}

const dir = await mkdtemp(join(tmpdir(), 'gw-perf-'));
const data = join(dir, 'perf.data');
const mock = await startMock();
try {
  const served = values.floor
    ? await startFloor(`http://127.0.0.1:${mock.port}/v1/chat/completions`)
    : await startBenchGateway({ entry: join(ROOT, 'dist/main.mjs'), mockUrl: `http://127.0.0.1:${mock.port}`, dataDir: dir, nodeArgs: ['--perf-basic-prof'], env: values.config ? { GATEWAY_CONFIG: values.config } : undefined });
  const path = values.floor ? '/v1/chat/completions' : '/api/v1/chat/completions';
  const t = target('profiled', `${served.url}${path}`, { authorization: `Bearer ${BENCH_KEY}` });
  const load = (s: number) => (values.stream ? streamLoad(t, { concurrency: 50, warmupSeconds: 1, seconds: s }) : autocannonRun(t, { connections: 50, seconds: s }));
  await load(3); // warm: the steady state is what counts
  const recording = spawn('perf', ['record', '-q', '-e', 'cpu-clock', '-F', '1999', '-g', '-p', String(served.proc.pid), '-o', data, '--', 'sleep', String(seconds)], { stdio: 'ignore' });
  const recorded = new Promise((resolve) => recording.once('exit', resolve));
  await load(seconds);
  await recorded;
  await summarise(data);
  await served.stop();
} finally {
  await mock.stop();
  await rm(dir, { recursive: true, force: true });
}

async function summarise(file: string): Promise<void> {
  console.log(execFileSync('perf', ['report', '-i', file, '--no-children', '-g', 'none', '--sort', 'dso', '--stdio', '-q'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').slice(0, 8).join('\n'));
  const samples: Array<{ tid: string; frames: string[] }> = [];
  const script = spawn('perf', ['script', '-i', file, '-F', 'tid,ip,sym'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let current: { tid: string; frames: string[] } | undefined;
  for await (const line of createInterface({ input: script.stdout })) {
    if (!line.trim()) continue;
    if (/^\s*\d+\s*$/.test(line)) {
      // a sample's header: perf pads the thread id to five columns
      current = { tid: line.trim().split(/\s+/)[0]!, frames: [] };
      samples.push(current);
    } else {
      current?.frames.push(line.trim().replace(/^\S+\s+/, '').replace(/\+0x[0-9a-f]+$/, ''));
    }
  }
  const byThread = [...count(samples.map((s) => s.tid))].sort((a, b) => b[1] - a[1]);
  const js = (frame: string) => frame.startsWith('JS:');
  const name = (frame: string) => frame.replace(/^JS:[*^~+]?/, '').replace('file://' + ROOT, '');
  // the busiest thread is the main one; the next is the log worker (or a compiler thread)
  for (const [rank, [tid]] of byThread.slice(0, 2).entries()) {
    const thread = rank === 0 ? 'main thread' : 'busiest other thread';
    const onThread = samples.filter((s) => s.tid === tid);
    const nearest = count(onThread.map(({ frames }) => {
      const at = frames.findIndex(js);
      const syscall = frames.slice(0, at < 0 ? frames.length : at + 1).some((f) => f.includes('do_syscall') || f.includes('entry_SYSCALL'));
      if (at < 0) return syscall ? '[kernel, from native code]' : `(native) ${frames[0] ?? '?'}`;
      return `${syscall ? '[system call] ' : ''}${name(frames[at]!)}`;
    }));
    const runtime = count(onThread.flatMap(({ frames }) => {
      const at = frames.findIndex(js);
      const call = at < 0 ? undefined : frames.slice(0, at).find((f) => /(Runtime_|Builtin_)/.test(f));
      return call ? [`${call.replace('v8::internal::', '')}  <  ${name(frames[at]!)}`] : [];
    }));
    const print = (title: string, counts: Map<string, number>) => {
      console.log(`\n${title}`);
      for (const [key, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((100 * n) / onThread.length).toFixed(2).padStart(6)}%  ${key}`);
    };
    console.log(`\n${thread}: ${onThread.length} of ${samples.length} samples`);
    print(`${thread} by nearest JavaScript frame`, nearest);
    print(`${thread}'s calls into V8's runtime, by the frame that made them`, runtime);
  }
}

function count(keys: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}
