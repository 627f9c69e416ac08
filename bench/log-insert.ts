/**
 * CPU per row of the SQLite log store's `insertBatch` (what the log worker spends per request),
 * on a fresh database under the OS temp dir: batches of 200 bench-like rows (request and answer
 * bodies, one attempt, costs), 50 untimed batches first, then `rounds` timed ones.
 *
 *   [BATCH=200] npx tsx bench/log-insert.ts [rounds=300]   (BATCH: rows per insertBatch)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteLogStore } from '../src/features/logs/sqlite.ts';
import { makeRecord } from '../src/features/logs/test-records.ts';
import type { LogAttempt } from '../src/features/logs/types.ts';
import { createRequestId } from '../src/kernel/request-id.ts';

const BATCH = Number(process.env.BATCH ?? 200);
const rounds = Number(process.argv[2] ?? 300);
const request = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello in one short sentence please.' }], max_tokens: 32 });
const response = JSON.stringify({
  id: 'chatcmpl-bench', object: 'chat.completion', created: 1, model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there! How are you today?' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 },
});
const attempts: LogAttempt[] = [{ model: 'gpt-4o-mini', provider: 'mock', status: 200, error_code: null, latency_ms: 3, kind: 'first' }];

function batch() {
  const now = Date.now();
  return Array.from({ length: BATCH }, () => makeRecord({
    id: createRequestId(now), created_at: now, model: 'gpt-4o-mini', api_key_id: 'bench-key', account_id: 'bench',
    request, response, attempts, input_cost: '0.0000018', output_cost: '0.0000054',
    request_tokens: 12, response_tokens: 9, latency_ms: 4, ttft_ms: 3, user_agent: 'OpenAI/JS 4.0',
  }));
}

const dir = await mkdtemp(join(tmpdir(), 'gw-log-insert-'));
try {
  const store = createSqliteLogStore({ dataDir: dir });
  await store.migrate();
  for (let i = 0; i < 50; i++) await store.insertBatch(batch());
  const batches = Array.from({ length: rounds }, batch);
  const before = process.cpuUsage();
  for (const b of batches) await store.insertBatch(b);
  const cpu = process.cpuUsage(before);
  const rows = rounds * BATCH;
  console.log(`insertBatch: ${((cpu.user + cpu.system) / rows).toFixed(1)} µs of CPU per row (user ${(cpu.user / rows).toFixed(1)}, system ${(cpu.system / rows).toFixed(1)}), ${rows} rows in batches of ${BATCH}`);
  await store.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
