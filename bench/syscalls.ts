/**
 * Syscalls per request of the floor and our gateway: each serves the same closed-loop load
 * (autocannon) while `strace -f -c` counts its system calls; the counts are divided by the
 * requests served. On a machine where crossing into the kernel is dear, every write or
 * wake-up more than the floor's is throughput lost.
 *
 *   npx tsx bench/syscalls.ts [--stream] [--seconds 3]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { freePort, serving, spawnNode, startBenchGateway, startMock, type Child } from './processes.ts';
import { BENCH_KEY, target } from './targets.ts';
import { autocannonRun } from './throughput.ts';
import { streamLoad } from './streams.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { stream: { type: 'boolean', default: false }, seconds: { type: 'string', default: '3' } } });
const seconds = Number(values.seconds);

/** Runs `load` while strace counts the syscalls of `pid`'s threads; the table strace prints. */
async function counted(pid: number, load: () => Promise<number>): Promise<{ served: number; table: Map<string, number> }> {
  const strace = spawn('strace', ['-f', '-c', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  strace.stderr.on('data', (chunk) => (out += chunk));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const served = await load();
  strace.kill('SIGINT');
  await new Promise((resolve) => strace.once('exit', resolve));
  const table = new Map<string, number>();
  for (const line of out.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols.length >= 5 && /^\d/.test(cols[0]!) && cols.at(-1) !== 'total') table.set(cols.at(-1)!, Number(cols[3]));
  }
  return { served, table };
}

const mock = await startMock();
const dataDir = await mkdtemp(join(tmpdir(), 'gw-sys-'));
const children: Child[] = [mock];
try {
  const floorPort = await freePort();
  const floor = await serving(
    spawnNode('floor', ['--import', 'tsx', 'bench/floor-proxy.ts'], { cwd: ROOT, env: { PORT: String(floorPort), UPSTREAM: `http://127.0.0.1:${mock.port}/v1/chat/completions` } }),
    floorPort,
  );
  const gateway = await startBenchGateway({ entry: join(ROOT, 'dist/main.mjs'), mockUrl: `http://127.0.0.1:${mock.port}`, dataDir });
  children.push(floor, gateway);
  const targets = [
    { child: floor, t: target('floor', `${floor.url}/v1/chat/completions`, { authorization: 'Bearer bench-upstream-key' }) },
    { child: gateway, t: target('gateway', `${gateway.url}/api/v1/chat/completions`, { authorization: `Bearer ${BENCH_KEY}` }) },
  ];
  const load = async (t: (typeof targets)[number]['t']) =>
    values.stream
      ? (await streamLoad(t, { concurrency: 50, warmupSeconds: 0, seconds })).streamsPerSecond * seconds
      : (await autocannonRun(t, { connections: 50, seconds })).rps * seconds;
  for (const { t } of targets) await load(t); // warm-up
  for (const { child, t } of targets) {
    const { served, table } = await counted(child.proc.pid!, () => load(t));
    const rows = [...table].sort((a, b) => b[1] - a[1]).filter(([, n]) => n / served >= 0.01);
    const total = [...table.values()].reduce((a, b) => a + b, 0);
    console.log(`${t.name}: ${served.toFixed(0)} ${values.stream ? 'streams' : 'requests'}, ${(total / served).toFixed(2)} syscalls each`);
    for (const [name, n] of rows) console.log(`  ${name.padEnd(16)} ${(n / served).toFixed(2)}`);
  }
} finally {
  for (const child of children.reverse()) await child.stop();
  await rm(dataDir, { recursive: true, force: true });
}
