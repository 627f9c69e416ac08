/**
 * The bench config with many keys: bench/gateway.bench.yaml with `keys` keys spread over
 * `keys / 4` accounts (rounded up), and the header sets a load generator rotates through so that
 * every key calls. A one-key bench hides what the call log pays per key: each batch appends to every
 * key's and every account's place in the log's covering indexes, so the pages a batch writes grow
 * with the keys it holds (bench/README.md, twelfth session).
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { BENCH_KEY } from './targets.ts';

const BENCH_CONFIG = fileURLToPath(new URL('./gateway.bench.yaml', import.meta.url));

/** Bench key number `i` (0 is BENCH_KEY); publicly known, for the bench only. */
export const benchKey = (i: number) => `${BENCH_KEY.slice(0, -8)}${String(i).padStart(8, '0')}`;

/** Writes the many-key config into `dir` and returns its path and one Authorization header set per key. */
export async function writeMultiKeyConfig(dir: string, keys: number): Promise<{ file: string; headerSets: Array<Record<string, string>> }> {
  const doc = parseDocument(await readFile(BENCH_CONFIG, 'utf8'));
  const accounts = Math.ceil(keys / 4);
  doc.set('accounts', Array.from({ length: accounts }, (_, a) => ({ id: `bench-${a}`, email: `bench-${a}@example.com`, name: `Bench ${a}`, role: 'member', group: 'default' })));
  doc.set('keys', Array.from({ length: keys }, (_, k) => ({
    id: `bench-key-${k}`,
    name: `Bench key ${k}`,
    key_hash: `sha256:${createHash('sha256').update(benchKey(k)).digest('hex')}`,
    account: `bench-${k % accounts}`,
  })));
  const file = join(dir, 'gateway.multi-key.yaml');
  await writeFile(file, doc.toString());
  return { file, headerSets: Array.from({ length: keys }, (_, k) => ({ authorization: `Bearer ${benchKey(k)}` })) };
}
