/**
 * Version N-1 on schema N: the call-log code of the release before the newest migration (taken
 * from git: the parent of the commit that added it, or HEAD while it is not committed yet) runs
 * on a database this code migrated, on SQLite and PostgreSQL: it starts (its migrate() finds a
 * newer schema and leaves it), inserts, lists, reads and sums; and both versions read each other's
 * rows, as a rolling upgrade or a rollback has them share one database. Nothing to maintain: a new
 * additive migration is tested against the code before it by itself.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteMigrations } from './migrations-sqlite.ts';
import { createPostgresLogStore } from './postgres.ts';
import { knownVersion } from './schema-compat.ts';
import { createSqliteLogStore } from './sqlite.ts';
import { makeRecord, statsRecords } from './test-records.ts';
import { costStats, modelStats, usageStats, type StatsQuery } from '../statistics/query.ts';
import type { LogStore } from './types.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../../..');
const MIGRATIONS_FILE = 'src/features/logs/migrations-sqlite.ts';
const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const N = knownVersion(sqliteMigrations);

interface PreviousStores {
  createSqliteLogStore: typeof createSqliteLogStore;
  createPostgresLogStore: typeof createPostgresLogStore;
}

let previous: PreviousStores;
let previousDir: string;
let dataDir: string;
let revision: string;

/** The commit whose code knows schema N-1: before the one that added migration N. */
async function previousRevision(): Promise<string> {
  const git = (args: string[]) => run('git', args, { cwd: ROOT }).then((r) => r.stdout.trim());
  if (!(await git(['rev-parse', '--is-inside-work-tree']).catch(() => ''))) throw new Error('this test reads the previous release from git: run it in a clone');
  if ((await git(['rev-parse', '--is-shallow-repository'])) === 'true') throw new Error('a shallow clone holds no previous release: fetch the history (fetch-depth: 0)');
  // Along main only, merges diffed against their first parent: a migration that came in with a
  // merge (renumbered there, or written on a branch) is added by that merge as far as main knows.
  const added = (await git(['log', '--first-parent', '-m', '--format=%H', '--reverse', '-S', `version: ${N},`, '--', MIGRATIONS_FILE])).split('\n')[0];
  return added ? `${added}^1` : 'HEAD';
}

beforeAll(async () => {
  revision = await previousRevision();
  previousDir = await mkdtemp(join(tmpdir(), 'gw-previous-release-'));
  dataDir = await mkdtemp(join(tmpdir(), 'gw-previous-data-'));
  await run('sh', ['-c', `git archive "$1" src | tar -x -C "$2"`, 'sh', revision, previousDir], { cwd: ROOT, maxBuffer: 64 << 20 });
  await symlink(join(ROOT, 'node_modules'), join(previousDir, 'node_modules'));
  const { sqliteMigrations: theirs } = await import(join(previousDir, MIGRATIONS_FILE));
  // The test means something only if that code really is one schema version behind.
  expect(knownVersion(theirs), `the call-log code at ${revision}`).toBe(N - 1);
  previous = {
    ...(await import(join(previousDir, 'src/features/logs/sqlite.ts'))),
    ...(await import(join(previousDir, 'src/features/logs/postgres.ts'))),
  };
}, 60_000);

afterAll(async () => {
  if (previousDir) await rm(previousDir, { recursive: true, force: true });
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const T = Date.parse('2024-03-01T00:00:00Z');

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
}

/** The current store migrates to N and writes a row; the previous one starts on it and works; each reads the other's rows. */
async function sharedDatabase(current: LogStore, older: LogStore) {
  await current.migrate();
  await current.insertBatch([makeRecord({ id: 'from-n', created_at: T, request_tokens: 5, input_cost: '0.5' })]);
  await older.migrate();
  await older.insertBatch([makeRecord({ id: 'from-n-1', created_at: T + 1, request_tokens: 7, input_cost: '0.25', request: '{"from":"n-1"}', error_message: 'n-1' })]);
  // A replayed batch is still ignored by the older code.
  await older.insertBatch([makeRecord({ id: 'from-n', created_at: T, request_tokens: 5, input_cost: '0.5' })]);

  for (const store of [older, current]) {
    const page = await store.list({}, 1, 10);
    expect(page.total).toBe(2);
    expect(page.items.map((r) => r.id)).toEqual(['from-n-1', 'from-n']);
    expect((await store.get('from-n'))?.request_tokens).toBe(5);
    expect((await store.get('from-n-1'))?.request_tokens).toBe(7);
    const [sum] = await store.rollup(T - 60_000, T + 60_000, {}, 'model');
    expect(sum).toMatchObject({ request_count: 2, prompt_tokens: 12 });
  }
  // What the newest columns default to in a row the older code wrote; its texts, wherever it keeps them.
  expect(await current.get('from-n-1')).toMatchObject({ sanitized: false, cache_similarity: null, request: { from: 'n-1' }, error_message: 'n-1' });
  // The older code's retention deletes leave this one's list counts exact too.
  expect(await older.deleteOlderThan(T + 1)).toBe(1);
  expect(await current.list({}, 1, 10)).toMatchObject({ total: 1, items: [{ id: 'from-n-1' }] });
  expect(await current.list({ model: 'm1', start_time: T, end_time: T + 3_600_000 }, 1, 10)).toMatchObject({ total: 1 });
}

const q = (over: Partial<StatsQuery>): StatsQuery => ({ start_date: '2024-03-01', end_date: '2024-04-01', timezone: 'UTC', group_by: 'day', ...over });

/** What the log API and the statistics answer on a store (whole-hour and half-hour zones alike). */
async function answers(store: LogStore) {
  return {
    list: await store.list({}, 1, 100),
    page: await store.list({ model: 'm1', start_time: T, end_time: T + 86_400_000 }, 2, 2),
    errors: await store.list({ status: 'error', provider: 'p1', error_code: 'upstream_unavailable' }, 1, 10),
    detail: await store.get('log_E'),
    shanghai: await usageStats(store, q({ timezone: 'Asia/Shanghai' })),
    kolkata: await usageStats(store, q({ timezone: 'Asia/Kolkata' })),
    months: await costStats(store, q({ timezone: 'America/New_York', group_by: 'month', account_id: 'a1' })),
    models: await modelStats(store, q({ api_key_id: 'k1' })),
  };
}

/**
 * A call log the previous release filled, migrated by this one: every row stays and every answer
 * is the same (the previous code sums 15-minute buckets, this one whole hours where it can); rows
 * the previous code writes after the upgrade (a rolling upgrade) count in this one's statistics.
 */
async function upgradedDatabase(older: LogStore, current: LogStore) {
  await older.migrate();
  await older.insertBatch(statsRecords);
  const before = await answers(older);
  await current.migrate();
  expect(await answers(current)).toEqual(before);
  await older.insertBatch([makeRecord({ id: 'late', created_at: Date.parse('2024-03-01T10:20:00Z'), request_tokens: 9, input_cost: '0.5' })]);
  await current.insertBatch([makeRecord({ id: 'later', created_at: Date.parse('2024-03-01T10:40:00Z'), request_tokens: 4, input_cost: '0.25' })]);
  // This release stages its rows and moves them within a second, or before its own reads: one here.
  await current.list({}, 1, 1);
  const after = await answers(older);
  expect(after.shanghai.summary.request_count).toBe(before.shanghai.summary.request_count + 2);
  expect(await answers(current)).toEqual(after);
}

describe(`a call log of the previous release upgraded to this one's schema (${N - 1} to ${N})`, () => {
  it('SQLite', async () => {
    const file = join(dataDir, 'upgraded.db');
    const older = previous.createSqliteLogStore({ file });
    const current = createSqliteLogStore({ file });
    try {
      await upgradedDatabase(older, current);
    } finally {
      await older.close();
      await current.close();
    }
  });

  it('PostgreSQL', async () => {
    const schema = `gw_upgrade_test_${randomBytes(6).toString('hex')}`;
    const older = await previous.createPostgresLogStore({ connectionString: url, schema });
    const current = await createPostgresLogStore({ connectionString: url, schema });
    try {
      await upgradedDatabase(older, current);
    } finally {
      await older.close();
      await current.close();
      await dropSchema(schema);
    }
  });
});

describe(`the previous release's call-log code on a schema migrated by this one (${N - 1} on ${N})`, () => {
  it('SQLite', async () => {
    const file = join(dataDir, 'shared.db');
    const current = createSqliteLogStore({ file });
    const older = previous.createSqliteLogStore({ file });
    try {
      await sharedDatabase(current, older);
    } finally {
      await older.close();
      await current.close();
    }
  });

  it('PostgreSQL', async () => {
    const schema = `gw_previous_test_${randomBytes(6).toString('hex')}`;
    const current = await createPostgresLogStore({ connectionString: url, schema });
    const older = await previous.createPostgresLogStore({ connectionString: url, schema });
    try {
      await sharedDatabase(current, older);
    } finally {
      await older.close();
      await current.close();
      await dropSchema(schema);
    }
  });
});
