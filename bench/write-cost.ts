/**
 * What one management write costs as gateway.yaml grows: for each size, starts a gateway on a
 * file already holding that many keys (less the few about to be created), then creates keys one
 * after another through the API, as an operator's script would, and prints the median time of a
 * create. The file is seeded rather than grown through the API so that the large sizes can be
 * measured on the code before the change too (growing it key by key costs the sum of all writes).
 * `npx tsx bench/write-cost.ts [sizes=10 100 500 1000]`.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseDocument } from 'yaml';
import { createLogger } from '../src/kernel/logger.ts';
import { appendItem } from '../src/config/write/yaml-edit.ts';
import { startGateway } from '../src/server.ts';

const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [10, 100, 500, 1000];
const MASTER = 'sk-bf-bench-master-7d2e9c4a1f0b6385';
/** Creates timed per size; the last one is the size-th key of the file. */
const TIMED = 5;

/** The fixture with `count` keys on the demo account, written as the API writes them. */
async function seededConfig(count: number): Promise<string> {
  const doc = parseDocument(await readFile('test/fixtures/management.yaml', 'utf8'));
  // The byte bounds (write-bounds.ts) raised too: this measures the cost of a write, not the bounds.
  doc.set('management', doc.createNode({ max_keys_per_account: count + 10, max_bytes_per_account: 1 << 30, max_config_bytes: 1 << 30 }));
  for (let n = 1; n <= count; n++) {
    const hash = createHash('sha256').update(`seed ${n}`).digest('hex');
    appendItem(doc, 'keys', {
      id: `key_seed${String(n).padStart(8, '0')}`,
      name: `bench key ${n}`,
      key_hash: `sha256:${hash}`,
      hint: hash.slice(-4),
      account: 'demo',
      status: 'active',
      permissions: { models: ['gpt-4o-mini'], rate_limit: 60 },
      created_at: '2026-01-01T00:00:00Z',
    });
  }
  return doc.toString({ lineWidth: 0 });
}

console.log('keys in file | ms per create (median of 5) | file size');
for (const size of sizes) {
  const dir = await mkdtemp(join(tmpdir(), 'gw-write-cost-'));
  const config = join(dir, 'gateway.yaml');
  await writeFile(config, await seededConfig(Math.max(0, size - TIMED - 1)));
  const started = await startGateway({
    logger: createLogger('silent'),
    env: { GATEWAY_CONFIG: config, PORT: '0', HOST: '127.0.0.1', GATEWAY_MASTER_KEY: MASTER, GATEWAY_DATA_DIR: join(dir, 'data'), MOCK_URL: 'http://127.0.0.1:9/v1' },
    watch: false,
  });
  if (!started) throw new Error('gateway did not start');
  const create = async (n: number) => {
    const t0 = performance.now();
    const response = await fetch(`${started.url}/v1/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench key ${n}`, account_id: 'demo', permissions: { models: ['gpt-4o-mini'], rate_limit: 60 } }),
    });
    if (response.status !== 201) throw new Error(`create ${n}: ${response.status} ${await response.text()}`);
    return performance.now() - t0;
  };
  // One untimed write first: the first write after a start pays for parsing the file once.
  await create(0);
  const times: number[] = [];
  for (let n = 1; n <= TIMED; n++) times.push(await create(n));
  const median = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  const bytes = (await readFile(config)).byteLength;
  console.log(`${String(size).padStart(12)} | ${median.toFixed(1).padStart(8)} | ${(bytes / 1024).toFixed(0)} KiB`);
  await started.server.close(true);
  await started.gateway.close();
  await rm(dir, { recursive: true, force: true });
}
