/**
 * The schema compatibility rule (schema-compat.ts): every migration without `minReader` is
 * additive, and a database whose recorded `min_reader` is above what this gateway knows is refused
 * with a message, on SQLite (directly and through the worker thread, as the gateway opens it) and
 * PostgreSQL; a newer but additive schema is used.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogStore } from './log-store.ts';
import { postgresMigrations } from './migrations-postgres.ts';
import { sqliteMigrations } from './migrations-sqlite.ts';
import { knownVersion } from './schema-compat.ts';
import { createSqliteLogStore } from './sqlite.ts';
import { makeRecord } from './test-records.ts';

const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const KNOWN = knownVersion(sqliteMigrations);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Column {
  name: string;
  type: string;
  notnull: number;
  dflt_value: unknown;
}

/** Each table's columns after applying the SQLite migrations up to `version`. */
function sqliteSchemaAt(version: number): Map<string, Column[]> {
  const db = new Database(':memory:');
  try {
    for (const m of sqliteMigrations) if (m.version <= version) db.exec(m.sql);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return new Map(tables.map(({ name }) => [name, db.prepare(`SELECT * FROM pragma_table_info('${name}')`).all() as Column[]]));
  } finally {
    db.close();
  }
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-schema-compat-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A SQLite call log migrated by this gateway, then marked as migrated further by a newer one. */
async function sqliteMigratedBeyond(minReader: number | null): Promise<string> {
  const dir = await tempDir();
  const store = createSqliteLogStore({ dataDir: dir });
  await store.migrate();
  await store.close();
  const db = new Database(join(dir, 'gateway.db'));
  db.prepare('INSERT INTO schema_migrations (version, name, applied_at, min_reader) VALUES (?, ?, ?, ?)').run(KNOWN + 1, 'from a newer release', Date.now(), minReader);
  db.close();
  return dir;
}

async function pgQuery(sql: string, values?: unknown[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql, values);
  } finally {
    await client.end();
  }
}

async function pgSchema(): Promise<string> {
  const schema = `gw_compat_test_${randomBytes(6).toString('hex')}`;
  cleanups.push(() => pgQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).then(() => {}));
  return schema;
}

describe('migrations are additive unless they say otherwise', () => {
  it('SQLite and PostgreSQL know the same migrations, with the same minReader', () => {
    const outline = (list: typeof sqliteMigrations) => list.map((m) => [m.version, m.minReader ?? null]);
    expect(outline(postgresMigrations)).toEqual(outline(sqliteMigrations));
  });

  it('each migration without minReader keeps every column of the schema before it, and adds only nullable or defaulted ones', () => {
    for (const m of sqliteMigrations.slice(1)) {
      if (m.minReader !== undefined) continue;
      const before = sqliteSchemaAt(m.version - 1);
      const after = sqliteSchemaAt(m.version);
      for (const [table, columns] of before) {
        const kept = after.get(table);
        expect(kept, `migration ${m.version} drops table ${table}`).toBeDefined();
        for (const column of columns) {
          expect(kept!.find((c) => c.name === column.name), `migration ${m.version}: ${table}.${column.name}`).toMatchObject({ type: column.type });
        }
        for (const added of kept!.filter((c) => !columns.some((old) => old.name === c.name))) {
          // The previous release inserts without naming it: it must take a value by itself.
          expect(added.notnull === 0 || added.dflt_value !== null, `migration ${m.version}: ${table}.${added.name} is NOT NULL without a default`).toBe(true);
        }
      }
    }
  });
});

describe('a call-log database migrated by a newer release', () => {
  it('SQLite: refused with a message when a newer migration is not additive, through the worker as the gateway opens it', async () => {
    const dir = await sqliteMigratedBeyond(KNOWN + 1);
    const direct = createSqliteLogStore({ dataDir: dir });
    const refusal = new RegExp(
      `the SQLite call log \\(.*gateway\\.db\\) is at schema version ${KNOWN + 1}, which a gateway must know schema version ${KNOWN + 1} or later to use .* this gateway knows up to ${KNOWN}\\. Run the newer release, or restore the database backup`,
    );
    await expect(direct.migrate()).rejects.toThrow(refusal);
    await direct.close();
    await expect(createLogStore({ dataDir: dir })).rejects.toMatchObject({ message: expect.stringMatching(refusal), code: 'log_schema_too_new' });
  });

  it('SQLite: used when the newer migrations are additive (no min_reader)', async () => {
    const dir = await sqliteMigratedBeyond(null);
    const store = await createLogStore({ dataDir: dir });
    cleanups.push(() => store.close());
    await store.insertBatch([makeRecord({ id: 'r1' })]);
    expect((await store.get('r1'))?.id).toBe('r1');
  });

  it('SQLite: a database from before min_reader existed gets the column and stays usable', async () => {
    const dir = await tempDir();
    const db = new Database(join(dir, 'gateway.db'));
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    db.exec(sqliteMigrations[0]!.sql);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (1, ?, 0)').run(sqliteMigrations[0]!.name);
    db.close();
    const store = createSqliteLogStore({ dataDir: dir });
    cleanups.push(() => store.close());
    await store.migrate();
    await store.insertBatch([makeRecord({ id: 'r1' })]);
    expect((await store.get('r1'))?.id).toBe('r1');
  });

  it('PostgreSQL: refused with a message when a newer migration is not additive; used when it is additive', async () => {
    const schema = await pgSchema();
    const first = await createLogStore({ dataDir: '/nonexistent', databaseUrl: url, pgSchema: schema });
    await first.close();
    await pgQuery(`INSERT INTO ${schema}.schema_migrations (version, name, applied_at, min_reader) VALUES ($1, 'newer, additive', 0, NULL)`, [KNOWN + 1]);
    const additive = await createLogStore({ dataDir: '/nonexistent', databaseUrl: url, pgSchema: schema });
    await additive.insertBatch([makeRecord({ id: 'r1' })]);
    expect((await additive.get('r1'))?.id).toBe('r1');
    await additive.close();
    await pgQuery(`INSERT INTO ${schema}.schema_migrations (version, name, applied_at, min_reader) VALUES ($1, 'newer, breaking', 0, $1)`, [KNOWN + 2]);
    await expect(createLogStore({ dataDir: '/nonexistent', databaseUrl: url, pgSchema: schema })).rejects.toMatchObject({
      code: 'log_schema_too_new',
      message: expect.stringMatching(
        new RegExp(`^the PostgreSQL call log \\(schema ${schema}\\) is at schema version ${KNOWN + 2}, which a gateway must know schema version ${KNOWN + 2} or later to use \\(migration ${KNOWN + 2} is not additive\\); this gateway knows up to ${KNOWN}\\.`),
      ),
    });
  });
});
