/**
 * CPU per row of a log store's `insertBatch` (what the log worker spends per request), on a fresh
 * store: batches of BATCH bench-like rows (request and answer bodies, one attempt, costs), KEYS keys
 * in 5 accounts, 6 models, 50 untimed batches first, then `rounds` timed ones.
 * SQLite (default): the in-thread driver in a temp dir, this process's CPU. STORE=postgres: a
 * throwaway schema on DATABASE_URL (or the local `test` database); the CPU of this process (the
 * client's share) and of the server's backend that ran the inserts (read from /proc, so the
 * server must run on this machine).
 *
 *   [BATCH=200] [KEYS=20] [STORE=sqlite|postgres] npx tsx bench/log-insert.ts [rounds=300]
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createPostgresLogStore } from '../src/features/logs/postgres.ts';
import { createSqliteLogStore } from '../src/features/logs/sqlite.ts';
import { makeRecord } from '../src/features/logs/test-records.ts';
import type { LogAttempt, LogStore } from '../src/features/logs/types.ts';
import { createRequestId } from '../src/kernel/request-id.ts';

const BATCH = Number(process.env.BATCH ?? 200);
/** Keys calling, four to an account: each batch appends at every key's and account's place in the covering indexes. */
const KEYS = Math.max(1, Number(process.env.KEYS ?? 20));
const STORE = process.env.STORE ?? 'sqlite';
const PG_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const APP = `gw_log_insert_${randomBytes(4).toString('hex')}`;
const rounds = Number(process.argv[2] ?? 300);
const request = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello in one short sentence please.' }], max_tokens: 32 });
const response = JSON.stringify({
  id: 'chatcmpl-bench', object: 'chat.completion', created: 1, model: 'gpt-4o-mini',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there! How are you today?' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 },
});
const attempts: LogAttempt[] = [{ model: 'gpt-4o-mini', provider: 'mock', status: 200, error_code: null, latency_ms: 3, kind: 'first' }];
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet', 'gemini-pro', 'qwen-max', 'deepseek-chat'];
let n = 0;

function batch() {
  const now = Date.now();
  return Array.from({ length: BATCH }, () => {
    const key = n++ % KEYS;
    return makeRecord({
      id: createRequestId(now), created_at: now, model: MODELS[n % MODELS.length]!, api_key_id: `key_${key}`, account_id: `acct_${key % Math.ceil(KEYS / 4)}`,
      request, response, attempts, input_cost: '0.0000018', output_cost: '0.0000054', provider_id: 'mock',
      request_tokens: 12, response_tokens: 9, latency_ms: 4, ttft_ms: 3, user_agent: 'OpenAI/JS 4.0',
    });
  });
}

/** utime + stime of a process, µs (Linux /proc; USER_HZ 100). */
async function procCpu(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function timed(store: LogStore, serverPid?: () => Promise<number>): Promise<string> {
  for (let i = 0; i < 50; i++) await store.insertBatch(batch());
  const batches = Array.from({ length: rounds }, batch);
  const pid = serverPid ? await serverPid() : undefined;
  const server0 = pid ? await procCpu(pid) : 0;
  const before = process.cpuUsage();
  for (const b of batches) await store.insertBatch(b);
  // SQLite stages rows and indexes them in bulk before a read (sqlite-staging.ts): one read, so
  // the indexing of the last rows is counted too.
  await store.get('none');
  const cpu = process.cpuUsage(before);
  const rows = rounds * BATCH;
  const own = `${((cpu.user + cpu.system) / rows).toFixed(1)} µs of CPU per row (user ${(cpu.user / rows).toFixed(1)}, system ${(cpu.system / rows).toFixed(1)})`;
  const server = pid ? `, server backend ${(((await procCpu(pid)) - server0) / rows).toFixed(1)} µs per row` : '';
  return `${STORE} insertBatch: ${own}${server}, ${rows} rows in batches of ${BATCH}`;
}

if (STORE === 'postgres') {
  const schema = `gw_log_insert_${randomBytes(6).toString('hex')}`;
  // One connection, so that one server backend runs every insert.
  const store = await createPostgresLogStore({ connectionString: `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}application_name=${APP}`, schema, max: 1 });
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await store.migrate();
    const backend = async () => Number((await admin.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [APP])).rows[0].pid);
    console.log(await timed(store, backend));
  } finally {
    await store.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
} else {
  const dir = await mkdtemp(join(tmpdir(), 'gw-log-insert-'));
  try {
    const store = createSqliteLogStore({ dataDir: dir });
    await store.migrate();
    console.log(await timed(store));
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
