/**
 * Which gateways may use a call-log database, whatever version its schema has reached.
 *
 * The rule: migrations are additive (new tables, indexes, and columns that are nullable or have a
 * default), so the previous release keeps inserting and reading on a schema migrated by the next
 * one: a rolling upgrade runs both against one database, and a rollback runs the older binary on
 * the newer schema (it names its columns, ignores the ones it does not know and skips the
 * migrations it has never heard of). Nothing to do for an additive migration. One that is not
 * (drops, renames or retypes something an older release reads) declares `minReader`: the oldest
 * schema version a gateway must know to work on the database once it has run. It is recorded
 * in `schema_migrations.min_reader`, and a gateway that knows less refuses to start with a
 * message, rather than failing every insert and losing the call log.
 * (schema-compat.test.ts holds every migration without `minReader` to that rule.)
 */
import type { Migration } from './migrations-sqlite.ts';

/** A row of `schema_migrations` as the check needs it. */
export interface AppliedMigration {
  version: number;
  min_reader: number | null;
}

/** The newest schema version a list of migrations reaches (what this gateway knows). */
export function knownVersion(migrations: readonly Migration[]): number {
  return Math.max(0, ...migrations.map((m) => m.version));
}

/** The refusal to use a database whose schema needs a newer gateway. */
export class SchemaTooNewError extends Error {
  readonly code = 'log_schema_too_new';
  constructor(message: string) {
    super(message);
    this.name = 'SchemaTooNewError';
  }
}

/**
 * Throws SchemaTooNewError when a migration already applied requires a gateway that knows a newer
 * schema than `migrations` reaches; a newer schema without such a requirement is fine.
 * `database` names it in the message ("the SQLite call log", ...).
 */
export function assertUsableSchema(applied: readonly AppliedMigration[], migrations: readonly Migration[], database: string): void {
  const known = knownVersion(migrations);
  const blocking = applied.filter((m) => m.min_reader != null && Number(m.min_reader) > known);
  if (!blocking.length) return;
  const newest = Math.max(...applied.map((m) => Number(m.version)));
  const needs = Math.max(...blocking.map((m) => Number(m.min_reader)));
  throw new SchemaTooNewError(
    `${database} is at schema version ${newest}, which a gateway must know schema version ${needs} or later to use ` +
      `(migration ${blocking.map((m) => m.version).join(', ')} is not additive); this gateway knows up to ${known}. ` +
      'Run the newer release, or restore the database backup taken before the upgrade (README: Upgrades and rollbacks).',
  );
}
