/**
 * The log-query benchmark (issue 37): fills a fresh SQLite store (a temp dir, the worker-thread
 * store the gateway runs) and a fresh PostgreSQL schema (DATABASE_URL or the local `test`
 * database, a random schema dropped at the end) with BENCH_LOG_ROWS calls (default 1,000,000;
 * bench/log-data.ts) through the stores' own insertBatch, then times every log-list filter and
 * every statistics query (bench/log-query-cases.ts): warm-up runs, then BENCH_LOG_RUNS timed runs
 * each (a query still running after 10 s stops at 3 or more), p50 and p95 against the aim
 * p95 ≤ 100 ms. PostgreSQL is skipped, with the reason, when no
 * server answers. `npm run bench` prints it last (BENCH_LOG_QUERIES=0 skips it).
 * BENCH_LOG_CASES=text times only the cases whose label holds that text (e.g. `breakdown`).
 *
 *   npx tsx bench/log-queries.ts [sqlite|postgres ...]     (default: both)
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createLogStore } from '../src/features/logs/log-store.ts';
import type { LogStore } from '../src/features/logs/types.ts';
import { benchBatches } from './log-data.ts';
import { listCases, statsCases, type QueryCase } from './log-query-cases.ts';
import { quantile } from './percentile.ts';

export const AIM_P95_MS = 100;
const ROWS = Math.max(1000, Number(process.env.BENCH_LOG_ROWS ?? 1_000_000));
const RUNS = Math.max(5, Number(process.env.BENCH_LOG_RUNS ?? 20));
const WARMUP = 2;
/** Only the cases whose label holds this text (all when unset). */
const ONLY = process.env.BENCH_LOG_CASES ?? '';
/** A query far over the aim stops after this long (at least MIN_RUNS runs): its verdict is clear. */
const CASE_BUDGET_MS = 10_000;
const MIN_RUNS = 3;
/** Rows per insertBatch while filling (the gateway's batches are smaller; see the insert rate line). */
const FILL_BATCH = 500;
const PG_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

export interface Timed {
  label: string;
  p50: number;
  p95: number;
  runs: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

async function fill(store: LogStore, name: string): Promise<string> {
  const t0 = performance.now();
  let done = 0;
  for (const batch of benchBatches(ROWS, FILL_BATCH)) {
    await store.insertBatch(batch);
    done += batch.length;
    if (done % 100_000 === 0) log(`  ${name}: ${done.toLocaleString('en-US')} rows (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  const s = (performance.now() - t0) / 1000;
  return `${ROWS.toLocaleString('en-US')} rows through insertBatch (${FILL_BATCH} a batch) in ${s.toFixed(1)} s, ${Math.round(ROWS / s).toLocaleString('en-US')} rows/s`;
}

async function time(store: LogStore, c: QueryCase): Promise<Timed> {
  for (let i = 0; i < WARMUP; i++) await c.run(store);
  const ms: number[] = [];
  const started = performance.now();
  while (ms.length < RUNS && (ms.length < MIN_RUNS || performance.now() - started < CASE_BUDGET_MS)) {
    const t0 = performance.now();
    await c.run(store);
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { label: c.label, p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), runs: ms.length };
}

/** One store's table: a line per query, p50, p95 and the verdict. */
export function queryTable(title: string, results: Timed[]): string {
  const width = Math.max(...results.map((r) => r.label.length));
  const lines = [title, `${'query'.padEnd(width)}   p50 ms   p95 ms   p95 ≤ ${AIM_P95_MS} ms`];
  for (const r of results) {
    const few = r.runs < RUNS ? ` (${r.runs} runs)` : '';
    lines.push(`${r.label.padEnd(width)}   ${r.p50.toFixed(1).padStart(6)}   ${r.p95.toFixed(1).padStart(6)}   ${r.p95 <= AIM_P95_MS ? 'met' : 'MISSED'}${few}`);
  }
  const missed = results.filter((r) => r.p95 > AIM_P95_MS).length;
  lines.push(`${results.length - missed} of ${results.length} queries met the aim${missed ? `, ${missed} MISSED` : ''}`);
  return lines.join('\n');
}

async function measure(store: LogStore, name: string, note: string): Promise<string> {
  const results: Timed[] = [];
  for (const c of [...listCases(ROWS), ...statsCases()].filter((x) => x.label.includes(ONLY))) {
    results.push(await time(store, c));
    log(`  ${name}: ${c.label}: p95 ${results.at(-1)!.p95.toFixed(1)} ms`);
  }
  return queryTable(`${name}: ${note}; ${WARMUP} warm-up and ${RUNS} timed runs per query`, results);
}

async function sqliteTable(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-bench-log-queries-'));
  const store = await createLogStore({ dataDir: dir });
  try {
    const filled = await fill(store, 'SQLite');
    return await measure(store, 'SQLite (worker thread, as the gateway runs it)', filled);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function postgresTable(): Promise<string> {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    return `PostgreSQL: skipped, no server answers at ${PG_URL.replace(/\/\/[^@/]*@/, '//')} (${(error as Error).message})`;
  }
  const schema = `gw_bench_${randomBytes(6).toString('hex')}`;
  try {
    const store = await createLogStore({ dataDir: '/nonexistent', databaseUrl: PG_URL, pgSchema: schema });
    try {
      const filled = await fill(store, 'PostgreSQL');
      // What autovacuum does on its own after a fill this size (statistics, the visibility map,
      // the dead versions of the rollups' rows updated by every batch), for every table: the
      // test server here runs with autovacuum off.
      const { rows: tables } = await admin.query('SELECT tablename FROM pg_tables WHERE schemaname = $1', [schema]);
      for (const { tablename } of tables) await admin.query(`VACUUM ANALYZE ${schema}."${tablename}"`);
      // And writes the fill's dirty pages out now, not while the queries are timed (a checkpoint
      // due after 1M rows otherwise flushes them in the background under the first cases).
      await admin.query('CHECKPOINT').catch(() => {});
      const { rows } = await admin.query('SHOW server_version');
      return await measure(store, `PostgreSQL ${rows[0].server_version}`, `${filled}, then VACUUM ANALYZE`);
    } finally {
      await store.close();
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await admin.end();
  }
}

/** Both stores' tables, as text (what `npm run bench` prints after the floor table). */
export async function logQueryBench(stores: string[] = ['sqlite', 'postgres']): Promise<string> {
  const tables: string[] = [`Log queries over ${ROWS.toLocaleString('en-US')} calls (aim: every query p95 ≤ ${AIM_P95_MS} ms)`];
  if (stores.includes('sqlite')) tables.push(await sqliteTable());
  if (stores.includes('postgres')) tables.push(await postgresTable());
  return tables.join('\n\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const stores = process.argv.slice(2);
  console.log(await logQueryBench(stores.length ? stores : undefined));
}
