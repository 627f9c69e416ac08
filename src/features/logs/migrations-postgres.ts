/**
 * PostgreSQL schema, as ordered migrations (same tables as SQLite; costs are exact NUMERIC).
 * Append new entries; never edit an applied one; keep them additive (schema-compat.ts).
 */
import type { Migration } from './migrations-sqlite.ts';

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
];
