/**
 * Summarise a V8 CPU profile (`node --cpu-prof`, e.g. from BENCH_PROFILE=1): the functions and
 * the files that spent the most self time.   npx tsx bench/profile-top.ts <file.cpuprofile> [n]
 * (a process with worker threads writes one profile per thread: the main thread's is the largest).
 */
import { readFile } from 'node:fs/promises';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

const args = process.argv.slice(2);
const limit = /^\d+$/.test(args.at(-1) ?? '') ? Number(args.pop()) : 25;
const file = args[0];
if (!file) {
  console.error('usage: npx tsx bench/profile-top.ts <file.cpuprofile> [n]');
  process.exit(2);
}
const profile = JSON.parse(await readFile(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfTime = new Map<number, number>();
profile.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
let total = 0;
for (const us of selfTime.values()) total += us;

const shortUrl = (url: string) => url.replace(/^file:\/\/.*?\/(node_modules|src|bench|test)\//, '$1/').replace(/^node:/, 'node:');
const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const [id, us] of selfTime) {
  const { callFrame } = byId.get(id)!;
  const where = shortUrl(callFrame.url) || '(native)';
  add(byFunction, `${callFrame.functionName || '(anonymous)'}  ${where}:${callFrame.lineNumber + 1}`, us);
  add(byFile, where.replace(/^(node_modules\/(@[^/]+\/)?[^/]+).*/, '$1'), us);
}
const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`);
  }
};
console.log(`total sampled: ${(total / 1e6).toFixed(1)} s`);
print('self time by function', byFunction);
print('self time by file / package', byFile);
