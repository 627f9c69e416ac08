/**
 * Which property reads and writes of the gateway's own code V8 saw more than one object shape at:
 * each build runs under load with `--log-ic` (every inline cache state change), and the sites of
 * its bundle (the entry's folder, dist/) whose cache went polymorphic (P, 2-4 shapes) or megamorphic (N, more) are listed with
 * their place in src/ (through the build's source map). With two builds or more, the sites only
 * one of them has are listed apart: what a change of shapes (the start rehearsal's objects
 * against the real ones, bench/README.md, issue 37) did to the code a request runs.
 *
 *   npx tsx bench/ic-sites.ts [--stream] [--seconds 3] name=entry[@node-flags][#VAR=value,...] ...
 *
 * A site's count is its state changes, not its executions: a megamorphic site that V8's stub
 * cache answers is logged only when it misses.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseVariant, startBenchGateway, startMock } from './processes.ts';
import { streamLoad } from './streams.ts';
import { BENCH_KEY, target } from './targets.ts';
import { autocannonRun } from './throughput.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { stream: { type: 'boolean', default: false }, seconds: { type: 'string', default: '3' } },
});
const specs = positionals.length ? positionals : ['now=dist/main.mjs'];

interface CodeRange {
  start: number;
  end: number;
  name: string;
}

/** The `*IC` lines of a V8 log, each placed in the function whose code holds its pc. */
export function icEvents(log: string): Array<{ kind: string; from: string; to: string; fn: string; line: number; column: number; key: string }> {
  const ranges: CodeRange[] = [];
  const byStart = new Map<number, CodeRange>();
  const events: Array<{ kind: string; pc: number; from: string; to: string; line: number; column: number; key: string }> = [];
  for (const line of log.split('\n')) {
    const f = line.split(',');
    if (f[0] === 'code-creation') {
      const range = { start: parseInt(f[4]!, 16), end: parseInt(f[4]!, 16) + Number(f[5]), name: f[6] ?? '' };
      ranges.push(range);
      byStart.set(range.start, range);
    } else if (f[0] === 'code-move') {
      const range = byStart.get(parseInt(f[1]!, 16));
      if (!range) continue;
      byStart.delete(range.start);
      const size = range.end - range.start;
      range.start = parseInt(f[2]!, 16);
      range.end = range.start + size;
      byStart.set(range.start, range);
    } else if (f[0]?.endsWith('IC') && f.length > 8) {
      // type, pc, time, line, column, old state, new state, map, key, modifier, slow reason
      events.push({ kind: f[0], pc: parseInt(f[1]!, 16), line: Number(f[3]), column: Number(f[4]), from: f[5]!, to: f[6]!, key: f[8]! });
    }
  }
  ranges.sort((a, b) => a.start - b.start);
  const owner = (pc: number) => {
    let lo = 0;
    let hi = ranges.length - 1;
    let found: CodeRange | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (ranges[mid]!.start <= pc) {
        found = ranges[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found && pc < found.end ? found.name.trim() : '';
  };
  return events.map(({ pc, ...event }) => ({ ...event, fn: owner(pc) }));
}

/** Sites of dist/ that went polymorphic or megamorphic, as `src/file.ts:line:col .key (fn)`, with their changes. */
async function shapeSites(log: string, dist: string): Promise<Map<string, number>> {
  const root = dirname(dist);
  const maps = new Map<string, SourceMap>();
  const sites = new Map<string, number>();
  for (const event of icEvents(log)) {
    if (event.to !== 'P' && event.to !== 'N') continue;
    const file = /(file:\/\/\S+\.mjs):\d+:\d+$/.exec(event.fn)?.[1];
    if (!file || dirname(fileURLToPath(file)) !== dist) continue;
    let map = maps.get(file);
    if (!map) {
      map = new SourceMap(JSON.parse(await readFile(`${fileURLToPath(file)}.map`, 'utf8')));
      maps.set(file, map);
    }
    const entry = map.findEntry(event.line - 1, event.column - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number };
    const place = entry.originalSource
      ? `${relative(root, entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : resolve(dist, entry.originalSource))}:${entry.originalLine! + 1}:${entry.originalColumn! + 1}`
      : `${file}:${event.line}:${event.column}`;
    const key = `${place} .${event.key} (${event.fn.split(' ')[0] || 'anonymous'})`;
    sites.set(key, (sites.get(key) ?? 0) + 1);
  }
  return sites;
}

const mock = await startMock();
const found = new Map<string, Map<string, number>>();
try {
  for (const spec of specs) {
    const variant = parseVariant(spec);
    const dir = await mkdtemp(join(tmpdir(), 'gw-ic-'));
    const logFile = join(dir, 'v8.log');
    const child = await startBenchGateway({
      name: variant.name,
      entry: resolve(ROOT, variant.entry),
      mockUrl: `http://127.0.0.1:${mock.port}`,
      dataDir: dir,
      nodeArgs: [...variant.nodeArgs, '--log-ic', `--logfile=${logFile}`, '--no-logfile-per-isolate'],
      env: variant.env,
    });
    try {
      const t = target(variant.name, `${child.url}/api/v1/chat/completions`, { authorization: `Bearer ${BENCH_KEY}` });
      if (values.stream) await streamLoad(t, { concurrency: 50, warmupSeconds: 0, seconds: Number(values.seconds) });
      else await autocannonRun(t, { connections: 50, seconds: Number(values.seconds) });
    } finally {
      await child.stop();
    }
    found.set(variant.name, await shapeSites(await readFile(logFile, 'latin1'), dirname(resolve(ROOT, variant.entry))));
    await rm(dir, { recursive: true, force: true });
  }
} finally {
  await mock.stop();
}

const show = (sites: Iterable<string>, all: Map<string, number>) => {
  for (const site of [...sites].sort()) console.log(`    ${site}  ×${all.get(site)}`);
};
for (const [name, sites] of found) {
  console.log(`${name}: ${sites.size} sites of dist/ with more than one shape`);
  if (found.size === 1) show(sites.keys(), sites);
}
if (found.size > 1) {
  for (const [name, sites] of found) {
    const only = [...sites.keys()].filter((site) => [...found].every(([other, otherSites]) => other === name || !otherSites.has(site)));
    console.log(`\nonly in ${name} (${only.length}):`);
    show(only, sites);
  }
}
