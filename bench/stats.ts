/**
 * Statistics benchmark: fills a fresh SQLite log store with ROWS calls (default 1,000,000) spread
 * over 30 days, then times each statistics and log-list query. Results go into bench/STATS.md.
 *
 *   npx tsx bench/stats.ts [rows]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { costOf } from '../src/kernel/decimal.ts';
import { createLogStore } from '../src/features/logs/log-store.ts';
import type { LogRecord, LogStore } from '../src/features/logs/types.ts';
import { costStats, modelStats, usageStats } from '../src/features/statistics/query.ts';
import type { StatsQuery } from '../src/features/statistics/query.ts';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const BATCH = 2_000;
const DAYS = 30;
const START = Date.parse('2024-03-01T00:00:00Z');
const KEYS = 20;
const ACCOUNTS = 5;
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet', 'gemini-pro', 'qwen-max', 'deepseek-chat'];
const PRICES = [[0.0025, 0.01], [0.00015, 0.0006], [0.003, 0.015], [0.00125, 0.005], [0.0024, 0.0096], [0.001, 0.002]];

/** Deterministic PRNG (mulberry32) so runs are comparable. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function record(i: number, rand: () => number): LogRecord {
  const key = Math.floor(rand() * KEYS);
  const m = Math.floor(rand() * MODELS.length);
  const prompt = 50 + Math.floor(rand() * 2000);
  const completion = Math.floor(rand() * 800);
  const ok = rand() > 0.03;
  return {
    id: `log_bench_${i}`, created_at: START + Math.floor((i / ROWS) * DAYS * 86_400_000),
    api_key_id: `key_${key}`, api_key_name: `Key ${key}`, account_id: `acct_${key % ACCOUNTS}`, group_id: null,
    provider_id: 'p1', model: MODELS[m]!, endpoint: 'chat', request_tokens: prompt, response_tokens: ok ? completion : 0,
    cached_tokens: 0, reasoning_tokens: 0, status: ok ? 'success' : 'error', http_status: ok ? 200 : 502,
    error_code: ok ? null : 'upstream_unavailable', error_message: ok ? null : 'upstream failed',
    latency_ms: 200 + Math.floor(rand() * 3000), ttft_ms: null, ip: '10.0.0.1', user_agent: 'bench/1', stream: false,
    cache_hit: false, attempts: [], input_cost: costOf(prompt, PRICES[m]![0]!),
    output_cost: costOf(ok ? completion : 0, PRICES[m]![1]!), currency: 'CNY',
    request: JSON.stringify({ messages: [{ role: 'user', content: 'hello' }], temperature: 0.7 }), response: null, billed: ok,
  };
}

async function time(label: string, fn: () => Promise<unknown>, runs = 5): Promise<string> {
  await fn(); // warm up (statement preparation, page cache)
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const line = `| ${label} | ${ms[Math.floor(runs / 2)]!.toFixed(1)} | ${ms[runs - 1]!.toFixed(1)} |`;
  console.log(line);
  return line;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-stats-'));
  const store: LogStore = await createLogStore({ dataDir: dir });
  try {
    const rand = rng(42);
    const t0 = performance.now();
    for (let i = 0; i < ROWS; i += BATCH) {
      const batch: LogRecord[] = [];
      for (let j = i; j < Math.min(ROWS, i + BATCH); j++) batch.push(record(j, rand));
      await store.insertBatch(batch);
    }
    const insertS = (performance.now() - t0) / 1000;
    console.log(`inserted ${ROWS} rows in ${insertS.toFixed(1)} s (${Math.round(ROWS / insertS)} rows/s, batches of ${BATCH})`);
    const peek = new Database(join(dir, 'gateway.db'), { readonly: true });
    console.log(`stat_rollup rows: ${(peek.prepare('SELECT COUNT(*) AS n FROM stat_rollup').get() as { n: number }).n}`);
    peek.close();

    const month: StatsQuery = { start_date: '2024-03-01', end_date: '2024-03-31', timezone: 'UTC', group_by: 'day' };
    const week: StatsQuery = { ...month, start_date: '2024-03-10', end_date: '2024-03-16' };
    console.log('| query | median ms | max ms |\n|---|---|---|');
    await time('usage, 31 days, by day, all accounts (UTC)', () => usageStats(store, month));
    await time('usage, 31 days, by day, Asia/Shanghai', () => usageStats(store, { ...month, timezone: 'Asia/Shanghai' }));
    await time('usage, 31 days, by month, America/New_York', () => usageStats(store, { ...month, timezone: 'America/New_York', group_by: 'month' }));
    await time('usage, 31 days, by model', () => usageStats(store, { ...month, group_by: 'model' }));
    await time('usage, 7 days, by day', () => usageStats(store, week));
    await time('cost, 31 days, by day', () => costStats(store, month));
    await time('models, 31 days', () => modelStats(store, month));
    await time('usage, 31 days, one account', () => usageStats(store, { ...month, account_id: 'acct_1' }));
    await time('cost, 31 days, one api key', () => costStats(store, { ...month, api_key_id: 'key_3' }));
    await time('models, 31 days, one api key', () => modelStats(store, { ...month, api_key_id: 'key_3' }));
    await time('logs list, page 1 of all (with total)', () => store.list({}, 1, 50));
    await time('logs list, page 1000 of all', () => store.list({}, 1000, 50));
    await time('logs list, one key + status=error', () => store.list({ api_key_id: 'key_3', status: 'error' }, 1, 50));
    await time('logs list, one model, one day window', () =>
      store.list({ model: 'gpt-4o', start_time: Date.parse('2024-03-05'), end_time: Date.parse('2024-03-06') }, 1, 50));
    await time('log detail by id', () => store.get('log_bench_123456'));
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
