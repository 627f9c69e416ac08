/**
 * PostgreSQL schema, as ordered migrations (same tables as SQLite; costs are exact NUMERIC).
 * Append new entries; never edit an applied one; keep them additive (schema-compat.ts).
 */
import type { Migration } from './migrations-sqlite.ts';
import { callLogCountsPostgres } from './migrations-counts.ts';
import { linearRollupUpdatesPostgres, rollupByModelPostgres } from './migrations-rollup-model.ts';

export const postgresMigrations: Migration[] = [
  {
    version: 1,
    name: 'call_logs and stat_rollup',
    sql: `
      CREATE TABLE call_logs (
        id TEXT PRIMARY KEY,
        created_at BIGINT NOT NULL,
        api_key_id TEXT NOT NULL,
        api_key_name TEXT NOT NULL,
        account_id TEXT NOT NULL,
        group_id TEXT,
        provider_id TEXT,
        model TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        request_tokens BIGINT NOT NULL,
        response_tokens BIGINT NOT NULL,
        cached_tokens BIGINT NOT NULL,
        reasoning_tokens BIGINT NOT NULL,
        status TEXT NOT NULL,
        http_status INTEGER NOT NULL,
        error_code TEXT,
        error_message TEXT,
        latency_ms BIGINT NOT NULL,
        ttft_ms BIGINT,
        ip TEXT NOT NULL,
        user_agent TEXT NOT NULL,
        stream BOOLEAN NOT NULL,
        cache_hit BOOLEAN NOT NULL,
        attempts JSONB NOT NULL,
        input_cost NUMERIC NOT NULL,
        output_cost NUMERIC NOT NULL,
        currency TEXT NOT NULL,
        request JSONB,
        response JSONB,
        billed BOOLEAN NOT NULL
      );
      CREATE INDEX call_logs_created ON call_logs (created_at);
      CREATE INDEX call_logs_key_created ON call_logs (api_key_id, created_at);
      CREATE INDEX call_logs_model_created ON call_logs (model, created_at);
      CREATE INDEX call_logs_status_created ON call_logs (status, created_at);
      CREATE INDEX call_logs_account_created ON call_logs (account_id, created_at);

      CREATE TABLE stat_rollup (
        bucket_ms BIGINT NOT NULL,
        account_id TEXT NOT NULL,
        api_key_id TEXT NOT NULL,
        model TEXT NOT NULL,
        request_count BIGINT NOT NULL,
        prompt_tokens BIGINT NOT NULL,
        completion_tokens BIGINT NOT NULL,
        total_tokens BIGINT NOT NULL,
        latency_sum BIGINT NOT NULL,
        input_cost NUMERIC NOT NULL,
        output_cost NUMERIC NOT NULL,
        PRIMARY KEY (bucket_ms, model, account_id, api_key_id)
      );
      CREATE INDEX stat_rollup_account ON stat_rollup (account_id, bucket_ms);
      CREATE INDEX stat_rollup_key ON stat_rollup (api_key_id, bucket_ms);
    `,
  },
  {
    version: 2,
    name: 'call_logs.cache_similarity (semantic cache hits)',
    sql: `ALTER TABLE call_logs ADD COLUMN cache_similarity DOUBLE PRECISION;`,
  },
  {
    version: 3,
    name: 'call_logs.sanitized (the stored text replaces what the store cannot hold)',
    sql: `ALTER TABLE call_logs ADD COLUMN sanitized BOOLEAN NOT NULL DEFAULT false;`,
  },
  {
    version: 4,
    // Additive and nullable: a binary of the version before writes its rows without it.
    name: 'call_logs.trace_id (OpenTelemetry trace of the request)',
    sql: `ALTER TABLE call_logs ADD COLUMN trace_id TEXT;`,
  },
  {
    version: 5,
    name: 'call_logs.guardrails (the verdicts of the guardrails that ran)',
    sql: `ALTER TABLE call_logs ADD COLUMN guardrails JSONB;`,
  },
  {
    version: 6,
    name: 'stat_rollup_hour (hourly sums of stat_rollup, kept by triggers)',
    // Additive: a table that triggers keep, whichever release writes stat_rollup (the previous
    // one included).
    sql: `
      -- stat_rollup summed per UTC hour (see migrations-sqlite.ts).
      CREATE TABLE stat_rollup_hour (
        bucket_ms BIGINT NOT NULL,
        account_id TEXT NOT NULL,
        api_key_id TEXT NOT NULL,
        model TEXT NOT NULL,
        request_count BIGINT NOT NULL,
        prompt_tokens BIGINT NOT NULL,
        completion_tokens BIGINT NOT NULL,
        total_tokens BIGINT NOT NULL,
        latency_sum BIGINT NOT NULL,
        input_cost NUMERIC NOT NULL,
        output_cost NUMERIC NOT NULL,
        PRIMARY KEY (bucket_ms, model, account_id, api_key_id)
      );
      INSERT INTO stat_rollup_hour
        SELECT (bucket_ms / 3600000) * 3600000, account_id, api_key_id, model, SUM(request_count), SUM(prompt_tokens), SUM(completion_tokens), SUM(total_tokens), SUM(latency_sum), SUM(input_cost), SUM(output_cost)
        FROM stat_rollup GROUP BY 1, model, account_id, api_key_id;
      -- Statement triggers: one upsert per batch statement, whatever rows it inserted or updated.
      CREATE FUNCTION stat_rollup_hour_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO stat_rollup_hour
          SELECT (bucket_ms / 3600000) * 3600000, account_id, api_key_id, model, SUM(request_count), SUM(prompt_tokens), SUM(completion_tokens), SUM(total_tokens), SUM(latency_sum), SUM(input_cost), SUM(output_cost)
          FROM new_rows GROUP BY 1, model, account_id, api_key_id ORDER BY 1, 2, 3, 4
        ON CONFLICT (bucket_ms, model, account_id, api_key_id) DO UPDATE SET
          request_count = stat_rollup_hour.request_count + EXCLUDED.request_count,
          prompt_tokens = stat_rollup_hour.prompt_tokens + EXCLUDED.prompt_tokens,
          completion_tokens = stat_rollup_hour.completion_tokens + EXCLUDED.completion_tokens,
          total_tokens = stat_rollup_hour.total_tokens + EXCLUDED.total_tokens,
          latency_sum = stat_rollup_hour.latency_sum + EXCLUDED.latency_sum,
          input_cost = stat_rollup_hour.input_cost + EXCLUDED.input_cost,
          output_cost = stat_rollup_hour.output_cost + EXCLUDED.output_cost;
        RETURN NULL;
      END $$;
      CREATE FUNCTION stat_rollup_hour_updated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO stat_rollup_hour
          SELECT (n.bucket_ms / 3600000) * 3600000, n.account_id, n.api_key_id, n.model, SUM(n.request_count - o.request_count), SUM(n.prompt_tokens - o.prompt_tokens), SUM(n.completion_tokens - o.completion_tokens), SUM(n.total_tokens - o.total_tokens), SUM(n.latency_sum - o.latency_sum), SUM(n.input_cost - o.input_cost), SUM(n.output_cost - o.output_cost)
          FROM new_rows n JOIN old_rows o USING (bucket_ms, model, account_id, api_key_id)
          GROUP BY 1, n.model, n.account_id, n.api_key_id ORDER BY 1, 2, 3, 4
        ON CONFLICT (bucket_ms, model, account_id, api_key_id) DO UPDATE SET
          request_count = stat_rollup_hour.request_count + EXCLUDED.request_count,
          prompt_tokens = stat_rollup_hour.prompt_tokens + EXCLUDED.prompt_tokens,
          completion_tokens = stat_rollup_hour.completion_tokens + EXCLUDED.completion_tokens,
          total_tokens = stat_rollup_hour.total_tokens + EXCLUDED.total_tokens,
          latency_sum = stat_rollup_hour.latency_sum + EXCLUDED.latency_sum,
          input_cost = stat_rollup_hour.input_cost + EXCLUDED.input_cost,
          output_cost = stat_rollup_hour.output_cost + EXCLUDED.output_cost;
        RETURN NULL;
      END $$;
      CREATE TRIGGER stat_rollup_hour_insert AFTER INSERT ON stat_rollup
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stat_rollup_hour_inserted();
      CREATE TRIGGER stat_rollup_hour_update AFTER UPDATE ON stat_rollup
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stat_rollup_hour_updated();
    `,
  },
  {
    version: 7,
    name: 'call_log_counts_hour and call_log_counts_day (list matches per filter and bucket, kept by triggers)',
    // Additive: tables that triggers keep, whichever release writes or deletes call_logs.
    sql: callLogCountsPostgres(),
  },
  {
    version: 8,
    name: 'call_log_bodies (bodies, attempts, error message and guardrails out of call_logs)',
    // Additive: a new table and a trigger; rows already written keep their texts inline and are
    // not touched (no rewrite at upgrade), the previous release keeps writing them inline.
    sql: `
      -- What only the detail read needs (bodies.ts), one row per call (see migrations-sqlite.ts).
      CREATE TABLE call_log_bodies (
        id TEXT PRIMARY KEY,
        request JSONB,
        response JSONB,
        attempts JSONB NOT NULL,
        error_message TEXT,
        guardrails JSONB
      );
      -- Retention (either release's) deletes call_logs rows; their side rows go with them, in
      -- one statement per DELETE.
      CREATE FUNCTION call_log_bodies_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM call_log_bodies b USING old_rows o WHERE b.id = o.id;
        RETURN NULL;
      END $$;
      CREATE TRIGGER call_log_bodies_delete AFTER DELETE ON call_logs
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION call_log_bodies_deleted();
    `,
  },
  {
    version: 9,
    name: "call_logs_key_breakdown and call_logs_account_breakdown (the breakdown's columns in the key's and the account's index)",
    // Additive: two indexes replace two narrower ones on the same leading columns (see
    // migrations-sqlite.ts).
    sql: `
      -- An index-only scan for the breakdown of one key or one account, where the visibility map
      -- marks the pages all-visible (autovacuum); id completes the list's order.
      DROP INDEX call_logs_key_created;
      CREATE INDEX call_logs_key_breakdown ON call_logs (api_key_id, created_at, id) INCLUDE (account_id, model,
        provider_id, group_id, api_key_name, status, request_tokens, response_tokens, latency_ms, ttft_ms,
        billed, input_cost, output_cost);
      DROP INDEX call_logs_account_created;
      CREATE INDEX call_logs_account_breakdown ON call_logs (account_id, created_at, id) INCLUDE (api_key_id, model,
        provider_id, group_id, api_key_name, status, request_tokens, response_tokens, latency_ms, ttft_ms,
        billed, input_cost, output_cost);
    `,
  },
  {
    version: 10,
    name: 'call_logs.counted on SQLite only (its writer counts its own batch); versions kept in step',
    // Nothing to change here: the statement trigger of migration 7 already adds a whole INSERT's
    // rows per bucket and combination, which is what SQLite's writer now does by itself.
    sql: `
      COMMENT ON TRIGGER call_log_counts_insert ON call_logs IS
        'Adds each INSERT statement''s rows to call_log_counts_hour and _day, per bucket and combination (migration 7).';
    `,
  },
  {
    version: 11,
    name: "call_logs_created_id (the list's whole order in the time index)",
    // Additive: one index replaces a narrower one on the same leading column; the previous
    // release names no index. (SQLite keeps created_at alone: see its migration 11.)
    sql: `
      -- The list and the breakdown read in the order created_at DESC, id DESC. Read backwards,
      -- this index gives it with no Incremental Sort of each millisecond's calls (~18 ms of the
      -- breakdown over all accounts at 1M rows, bench/README.md).
      CREATE INDEX call_logs_created_id ON call_logs (created_at, id);
      DROP INDEX call_logs_created;
    `,
  },
  {
    version: 12,
    name: 'stat_rollup_hour_model (hourly sums over all accounts and keys, kept by triggers)',
    // Additive: a table that triggers keep, whichever release writes stat_rollup.
    sql: rollupByModelPostgres(),
  },
  {
    version: 13,
    name: 'call_logs_staged on SQLite only; versions kept in step',
    // Nothing to change here: the staging table is the SQLite writer's (sqlite-staging.ts).
    sql: '-- no change on PostgreSQL',
  },
  {
    version: 14,
    name: 'the rollup update triggers sum new minus old rows instead of joining them (linear in a batch)',
    // Additive: the same triggers call functions replaced in place; what they add is the same.
    sql: linearRollupUpdatesPostgres(),
  },
];
