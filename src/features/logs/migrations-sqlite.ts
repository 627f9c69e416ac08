/**
 * SQLite schema, as ordered migrations. Append new entries; never edit an applied one (its
 * version is recorded in `schema_migrations`). Keep them additive (schema-compat.ts): a new column
 * is nullable or has a default, so the previous release still runs on the schema.
 */

import { callLogCountsSqlite, countedByWriterSqlite } from './migrations-counts.ts';
import { rollupByModelSqlite } from './migrations-rollup-model.ts';
import { stagedTableSqlite } from './sqlite-staging.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * Only for a migration that is NOT additive (schema-compat.ts): the oldest schema version a
   * gateway must know to use the database after it, usually this migration's own. Older gateways
   * then refuse to start on the database instead of failing on it.
   */
  minReader?: number;
}


export const sqliteMigrations: Migration[] = [
  {
    version: 1,
    name: 'call_logs and stat_rollup',
    sql: `
      CREATE TABLE call_logs (
        id TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        api_key_id TEXT NOT NULL,
        api_key_name TEXT NOT NULL,
        account_id TEXT NOT NULL,
        group_id TEXT,
        provider_id TEXT,
        model TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        request_tokens INTEGER NOT NULL,
        response_tokens INTEGER NOT NULL,
        cached_tokens INTEGER NOT NULL,
        reasoning_tokens INTEGER NOT NULL,
        status TEXT NOT NULL,
        http_status INTEGER NOT NULL,
        error_code TEXT,
        error_message TEXT,
        latency_ms INTEGER NOT NULL,
        ttft_ms INTEGER,
        ip TEXT NOT NULL,
        user_agent TEXT NOT NULL,
        stream INTEGER NOT NULL,
        cache_hit INTEGER NOT NULL,
        attempts TEXT NOT NULL,
        input_cost TEXT NOT NULL,
        output_cost TEXT NOT NULL,
        input_cost_nano INTEGER NOT NULL,
        output_cost_nano INTEGER NOT NULL,
        currency TEXT NOT NULL,
        request TEXT,
        response TEXT,
        billed INTEGER NOT NULL
      );
      CREATE INDEX call_logs_created ON call_logs (created_at);
      CREATE INDEX call_logs_key_created ON call_logs (api_key_id, created_at);
      CREATE INDEX call_logs_model_created ON call_logs (model, created_at);
      CREATE INDEX call_logs_status_created ON call_logs (status, created_at);
      CREATE INDEX call_logs_account_created ON call_logs (account_id, created_at);

      -- One row per 15-minute UTC bucket x model x account x key, added to in the same
      -- transaction as the log rows, so statistics never scan call_logs. Key order lets
      -- GROUP BY bucket_ms[, model] stream over the primary key without sorting.
      CREATE TABLE stat_rollup (
        bucket_ms INTEGER NOT NULL,
        account_id TEXT NOT NULL,
        api_key_id TEXT NOT NULL,
        model TEXT NOT NULL,
        request_count INTEGER NOT NULL,
        prompt_tokens INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        total_tokens INTEGER NOT NULL,
        latency_sum INTEGER NOT NULL,
        input_cost_nano INTEGER NOT NULL,
        output_cost_nano INTEGER NOT NULL,
        PRIMARY KEY (bucket_ms, model, account_id, api_key_id)
      ) WITHOUT ROWID;
      CREATE INDEX stat_rollup_account ON stat_rollup (account_id, bucket_ms);
      CREATE INDEX stat_rollup_key ON stat_rollup (api_key_id, bucket_ms);
    `,
  },
  {
    version: 2,
    name: 'call_logs.cache_similarity (semantic cache hits)',
    sql: `ALTER TABLE call_logs ADD COLUMN cache_similarity REAL;`,
  },
  {
    version: 3,
    name: 'call_logs.sanitized (the stored text replaces what the store cannot hold)',
    sql: `ALTER TABLE call_logs ADD COLUMN sanitized INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    version: 4,
    // Additive and nullable: a binary of the version before writes its rows without it.
    name: 'call_logs.trace_id (OpenTelemetry trace of the request)',
    sql: `ALTER TABLE call_logs ADD COLUMN trace_id TEXT;`,
  },
  {
    version: 5,
    name: 'call_logs.guardrails (the verdicts of the guardrails that ran, JSON)',
    sql: `ALTER TABLE call_logs ADD COLUMN guardrails TEXT;`,
  },
  {
    version: 6,
    name: 'stat_rollup_hour (hourly sums of stat_rollup, kept by triggers)',
    // Additive: a table that triggers keep, whichever release writes stat_rollup (the previous
    // one included).
    sql: `
      -- stat_rollup summed per UTC hour: statistics over whole local hours (every zone but a
      -- few with half-hour offsets) read a quarter of the rows.
      CREATE TABLE stat_rollup_hour (
        bucket_ms INTEGER NOT NULL,
        account_id TEXT NOT NULL,
        api_key_id TEXT NOT NULL,
        model TEXT NOT NULL,
        request_count INTEGER NOT NULL,
        prompt_tokens INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        total_tokens INTEGER NOT NULL,
        latency_sum INTEGER NOT NULL,
        input_cost_nano INTEGER NOT NULL,
        output_cost_nano INTEGER NOT NULL,
        PRIMARY KEY (bucket_ms, model, account_id, api_key_id)
      ) WITHOUT ROWID;
      INSERT INTO stat_rollup_hour
        SELECT (bucket_ms / 3600000) * 3600000, account_id, api_key_id, model, SUM(request_count), SUM(prompt_tokens),
          SUM(completion_tokens), SUM(total_tokens), SUM(latency_sum), SUM(input_cost_nano), SUM(output_cost_nano)
        FROM stat_rollup GROUP BY 1, model, account_id, api_key_id;
      CREATE TRIGGER stat_rollup_hour_insert AFTER INSERT ON stat_rollup BEGIN
        INSERT INTO stat_rollup_hour VALUES ((NEW.bucket_ms / 3600000) * 3600000, NEW.account_id, NEW.api_key_id, NEW.model,
          NEW.request_count, NEW.prompt_tokens, NEW.completion_tokens, NEW.total_tokens, NEW.latency_sum,
          NEW.input_cost_nano, NEW.output_cost_nano)
        ON CONFLICT (bucket_ms, model, account_id, api_key_id) DO UPDATE SET
          request_count = request_count + excluded.request_count,
          prompt_tokens = prompt_tokens + excluded.prompt_tokens,
          completion_tokens = completion_tokens + excluded.completion_tokens,
          total_tokens = total_tokens + excluded.total_tokens,
          latency_sum = latency_sum + excluded.latency_sum,
          input_cost_nano = input_cost_nano + excluded.input_cost_nano,
          output_cost_nano = output_cost_nano + excluded.output_cost_nano;
      END;
      CREATE TRIGGER stat_rollup_hour_update AFTER UPDATE ON stat_rollup BEGIN
        UPDATE stat_rollup_hour SET
          request_count = request_count + NEW.request_count - OLD.request_count,
          prompt_tokens = prompt_tokens + NEW.prompt_tokens - OLD.prompt_tokens,
          completion_tokens = completion_tokens + NEW.completion_tokens - OLD.completion_tokens,
          total_tokens = total_tokens + NEW.total_tokens - OLD.total_tokens,
          latency_sum = latency_sum + NEW.latency_sum - OLD.latency_sum,
          input_cost_nano = input_cost_nano + NEW.input_cost_nano - OLD.input_cost_nano,
          output_cost_nano = output_cost_nano + NEW.output_cost_nano - OLD.output_cost_nano
        WHERE bucket_ms = (NEW.bucket_ms / 3600000) * 3600000 AND model = NEW.model
          AND account_id = NEW.account_id AND api_key_id = NEW.api_key_id;
      END;
    `,
  },
  {
    version: 7,
    name: 'call_log_counts_hour and call_log_counts_day (list matches per filter and bucket, kept by triggers)',
    // Additive: tables that triggers keep, whichever release writes or deletes call_logs.
    sql: callLogCountsSqlite(),
  },
  {
    version: 8,
    name: 'call_log_bodies (bodies, attempts, error message and guardrails out of call_logs)',
    // Additive: a new table and a trigger; rows already written keep their texts inline and are
    // not touched (no rewrite at upgrade), the previous release keeps writing them inline.
    sql: `
      -- What only the detail read needs (bodies.ts), one row per call, so that scans of
      -- call_logs read a third of the pages.
      CREATE TABLE call_log_bodies (
        id TEXT PRIMARY KEY,
        request TEXT,
        response TEXT,
        attempts TEXT NOT NULL,
        error_message TEXT,
        guardrails TEXT
      ); -- A rowid table: WITHOUT ROWID cost more per insert with rows this wide (bench/README.md).
      -- Retention (either release's) deletes call_logs rows; their side rows go with them.
      CREATE TRIGGER call_log_bodies_delete AFTER DELETE ON call_logs BEGIN
        DELETE FROM call_log_bodies WHERE id = OLD.id;
      END;
    `,
  },
  {
    version: 9,
    name: "call_logs_key_breakdown and call_logs_account_breakdown (the breakdown's columns in the key's and the account's index)",
    // Additive: two indexes replace two narrower ones on the same leading columns; the previous
    // release reads and writes through either (it names no index).
    sql: `
      -- The breakdown (breakdown-sqlite.ts) reads the newest 50,000 calls of one key or one
      -- account: with every column it folds in the index, no row of call_logs is looked up
      -- (50,000 random lookups were ~80 ms of CPU at 1M rows, bench/README.md). id completes
      -- the list's order (created_at DESC, id DESC).
      DROP INDEX call_logs_key_created;
      CREATE INDEX call_logs_key_breakdown ON call_logs (api_key_id, created_at, id, account_id, model,
        provider_id, group_id, api_key_name, status, request_tokens, response_tokens, latency_ms, ttft_ms,
        billed, input_cost_nano, output_cost_nano, input_cost, output_cost);
      DROP INDEX call_logs_account_created;
      CREATE INDEX call_logs_account_breakdown ON call_logs (account_id, created_at, id, api_key_id, model,
        provider_id, group_id, api_key_name, status, request_tokens, response_tokens, latency_ms, ttft_ms,
        billed, input_cost_nano, output_cost_nano, input_cost, output_cost);
    `,
  },
  {
    version: 10,
    name: 'call_logs.counted (a writer that counts its own batch into call_log_counts_*)',
    // Additive: a nullable column; the insert trigger still counts every row that leaves it out,
    // as the previous release's do.
    sql: countedByWriterSqlite(),
  },
  {
    version: 11,
    name: 'call_logs_created_id on PostgreSQL only; versions kept in step',
    // Nothing to change here. The id beside created_at spares the breakdown over all accounts
    // its sort of each millisecond's calls (~35 of ~150 ms at 1M rows), but made every row
    // written ~5 % dearer (log-insert.ts: 114 against 120 us, 5 interleaved pairs, bench/README.md),
    // and the log worker's CPU is what the gateway's throughput shares its cores with.
    sql: '-- no change on SQLite',
  },
  {
    version: 12,
    name: 'stat_rollup_hour_model (hourly sums over all accounts and keys, kept by triggers)',
    // Additive: a table that triggers keep, whichever release writes stat_rollup.
    sql: rollupByModelSqlite(),
  },
  {
    version: 13,
    name: 'call_logs_staged (rows land here and move into call_logs in bulk)',
    // Additive: a table the previous release ignores. Rows staged when such a release takes over
    // (after a crash) wait there until this release starts again and moves them.
    sql: stagedTableSqlite(),
  },
  {
    version: 14,
    name: 'linear rollup update triggers on PostgreSQL only; versions kept in step',
    // Nothing to change here: SQLite's rollup triggers are row triggers, with no join.
    sql: '-- no change on SQLite',
  },
];
