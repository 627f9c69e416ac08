/**
 * What one management write costs as gateway.yaml grows: creates keys one after another through
 * the API (as an operator's script would) and prints the time of the writes around each
 * checkpoint. A write edits, validates, writes and reloads the whole file, so this shows whether
 * that cost stays flat. `npx tsx bench/write-cost.ts [keys=1000]`.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createLogger } from '../src/logger.ts';
import { startGateway } from '../src/start.ts';

const total = Number(process.argv[2] ?? 1000);
const MASTER = 'sk-bf-bench-master';
const dir = await mkdtemp(join(tmpdir(), 'gw-write-cost-'));
const config = join(dir, 'gateway.yaml');
await cp('test/fixtures/management.yaml', config);
// Room for every key on one account: the per-account cap is what is being grown past.
await writeFile(config, `${await readFile(config, 'utf8')}management:\n  max_keys_per_account: ${total + 10}\n`);
const started = await startGateway({
  logger: createLogger('silent'),
  env: { GATEWAY_CONFIG: config, PORT: '0', HOST: '127.0.0.1', GATEWAY_MASTER_KEY: MASTER, GATEWAY_DATA_DIR: join(dir, 'data'), MOCK_URL: 'http://127.0.0.1:9/v1' },
  watch: false,
});
if (!started) throw new Error('gateway did not start');

const checkpoints = new Set([1, 10, 100, 250, 500, 750, total]);
const window: number[] = [];
console.log('keys in file | ms per create (median of the 5 before) | file size');
for (let n = 1; n <= total; n++) {
  const t0 = performance.now();
  const response = await fetch(`${started.url}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${MASTER}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `bench key ${n}`, account_id: 'demo', permissions: { models: ['gpt-4o-mini'], rate_limit: 60 } }),
  });
  if (response.status !== 201) throw new Error(`create ${n}: ${response.status} ${await response.text()}`);
  window.push(performance.now() - t0);
  if (window.length > 5) window.shift();
  if (checkpoints.has(n)) {
    const median = [...window].sort((a, b) => a - b)[Math.floor(window.length / 2)]!;
    const size = (await readFile(config)).byteLength;
    console.log(`${String(n).padStart(12)} | ${median.toFixed(1).padStart(8)} | ${(size / 1024).toFixed(0)} KiB`);
  }
}
await started.server.close(true);
await started.gateway.close();
await rm(dir, { recursive: true, force: true });
