/**
 * Resident memory of the gateway idle after start, for issue 18's idle aim: starts each variant
 * `--starts` times on the bench config (interleaved), reads VmRSS 2 s after it is ready and
 * before any request, and prints the median and range per variant.
 *
 *   npx tsx bench/idle-memory.ts [--starts 5] name=entry[@node-flags][#VAR=value,...] ...
 *   e.g. npx tsx bench/idle-memory.ts now=dist/main.mjs small-young=dist/main.mjs@--max-semi-space-size=4
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { memoryOf, parseVariant, startBenchGateway } from './processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SETTLE_MS = 2000;
const { values, positionals } = parseArgs({ allowPositionals: true, options: { starts: { type: 'string', default: '5' } } });
if (positionals.length < 1) {
  console.error('usage: npx tsx bench/idle-memory.ts [--starts 5] name=entry[@node-flags][#VAR=value,...] ...');
  process.exit(2);
}
const variants = positionals.map((spec) => ({ ...parseVariant(spec), rss: [] as number[] }));
for (let start = 0; start < Number(values.starts); start++) {
  for (const v of start % 2 === 0 ? variants : [...variants].reverse()) {
    const dataDir = await mkdtemp(join(tmpdir(), 'gw-idle-'));
    // The mock is never called: the reading is taken before any request.
    const child = await startBenchGateway({ name: v.name, entry: resolve(ROOT, v.entry), mockUrl: 'http://127.0.0.1:9', dataDir, nodeArgs: v.nodeArgs, env: v.env });
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    v.rss.push(memoryOf(child.proc.pid)?.rss ?? NaN);
    await child.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const v of variants) {
  console.log(`${v.name.padEnd(16)} idle RSS ${median(v.rss).toFixed(1)} MiB (${Math.min(...v.rss).toFixed(1)}–${Math.max(...v.rss).toFixed(1)})`);
}
