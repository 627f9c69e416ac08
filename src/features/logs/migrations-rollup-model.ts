/**
 * Migration 12's SQL (both stores): stat_rollup_hour summed over accounts and keys, one row per
 * UTC hour and model. Statistics over all accounts (the admin's dashboard) read it: a month is
 * ~4,300 rows for six models instead of ~86,000 with twenty keys (bench/README.md, issue 37).
 * Triggers on stat_rollup_hour keep it, so whatever writes stat_rollup (the previous release
 * included) feeds it. Applied once and recorded: never change this text, add a migration instead.
 */
import { pgTriggerFunction, pgTriggerFunctionReplaced } from './migrations-pg-function.ts';

/** The rollups' summed columns: costs in nano units on SQLite, exact NUMERIC on PostgreSQL. */
const COUNTS = ['request_count', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'latency_sum'];
const SUMS_SQLITE = [...COUNTS, 'input_cost_nano', 'output_cost_nano'];
const SUMS_POSTGRES = [...COUNTS, 'input_cost', 'output_cost'];

const list = (sums: string[], each: (c: string) => string) => sums.map(each).join(', ');

export function rollupByModelSqlite(): string {
  const S = SUMS_SQLITE;
  return `
      CREATE TABLE stat_rollup_hour_model (
        bucket_ms INTEGER NOT NULL,
        model TEXT NOT NULL,
        ${list(S, (c) => `${c} INTEGER NOT NULL`)},
        PRIMARY KEY (bucket_ms, model)
      ) WITHOUT ROWID;
      INSERT INTO stat_rollup_hour_model
        SELECT bucket_ms, model, ${list(S, (c) => `SUM(${c})`)} FROM stat_rollup_hour GROUP BY bucket_ms, model;
      -- stat_rollup's triggers upsert stat_rollup_hour: a new row fires the first, an added one
      -- the second.
      CREATE TRIGGER stat_rollup_hour_model_insert AFTER INSERT ON stat_rollup_hour BEGIN
        INSERT INTO stat_rollup_hour_model VALUES (NEW.bucket_ms, NEW.model, ${list(S, (c) => `NEW.${c}`)})
        ON CONFLICT (bucket_ms, model) DO UPDATE SET ${list(S, (c) => `${c} = ${c} + excluded.${c}`)};
      END;
      CREATE TRIGGER stat_rollup_hour_model_update AFTER UPDATE ON stat_rollup_hour BEGIN
        UPDATE stat_rollup_hour_model SET ${list(S, (c) => `${c} = ${c} + NEW.${c} - OLD.${c}`)}
        WHERE bucket_ms = NEW.bucket_ms AND model = NEW.model;
      END;
  `;
}

export function rollupByModelPostgres(): string {
  const S = SUMS_POSTGRES;
  const upsert = (select: string) => `INSERT INTO stat_rollup_hour_model ${select}
        ON CONFLICT (bucket_ms, model) DO UPDATE SET ${list(S, (c) => `${c} = stat_rollup_hour_model.${c} + EXCLUDED.${c}`)};`;
  // Statement triggers, one upsert per statement, in key order (no deadlock between writers).
  return `
      CREATE TABLE stat_rollup_hour_model (
        bucket_ms BIGINT NOT NULL,
        model TEXT NOT NULL,
        ${list(S, (c) => `${c} ${c.endsWith('cost') ? 'NUMERIC' : 'BIGINT'} NOT NULL`)},
        PRIMARY KEY (bucket_ms, model)
      );
      INSERT INTO stat_rollup_hour_model
        SELECT bucket_ms, model, ${list(S, (c) => `SUM(${c})`)} FROM stat_rollup_hour GROUP BY bucket_ms, model;
      ${pgTriggerFunction('stat_rollup_hour_model_inserted', upsert(`SELECT bucket_ms, model, ${list(S, (c) => `SUM(${c})`)}
        FROM new_rows GROUP BY 1, 2 ORDER BY 1, 2`))}
      ${pgTriggerFunction('stat_rollup_hour_model_updated', upsert(`SELECT n.bucket_ms, n.model, ${list(S, (c) => `SUM(n.${c} - o.${c})`)}
        FROM new_rows n JOIN old_rows o USING (bucket_ms, model, account_id, api_key_id) GROUP BY 1, 2 ORDER BY 1, 2`))}
      CREATE TRIGGER stat_rollup_hour_model_insert AFTER INSERT ON stat_rollup_hour
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stat_rollup_hour_model_inserted();
      CREATE TRIGGER stat_rollup_hour_model_update AFTER UPDATE ON stat_rollup_hour
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stat_rollup_hour_model_updated();
  `;
}

/**
 * Migration 14's SQL (PostgreSQL): the UPDATE statement triggers on stat_rollup (migration 6) and
 * on stat_rollup_hour (migration 12) joined their old and new transition tables. PL/pgSQL plans
 * that join before it knows their sizes (it guesses one row each) and took a nested loop, so a
 * batch adding to n existing rollup rows compared n x n of them: with 200 keys calling, every row
 * of a batch is a rollup row of its own, and 500 of them cost ~36 ms in each of the two triggers
 * (the backend's CPU per call-log row doubled from one key to 200; bench/README.md, issue 37).
 * Each now sums the new rows and the negated old ones per group (UNION ALL, one aggregate):
 * linear, whatever the plan. A row whose key columns an operator changed by hand now moves its
 * sums to its new group; the join dropped it.
 */
export function linearRollupUpdatesPostgres(): string {
  const S = SUMS_POSTGRES;
  const KEYS = 'bucket_ms, model, account_id, api_key_id';
  const changes = `(SELECT ${KEYS}, ${list(S, (c) => c)} FROM new_rows
          UNION ALL SELECT ${KEYS}, ${list(S, (c) => `-${c} AS ${c}`)} FROM old_rows) d`;
  const addTo = (table: string, conflict: string) =>
    `ON CONFLICT (${conflict}) DO UPDATE SET ${list(S, (c) => `${c} = ${table}.${c} + EXCLUDED.${c}`)};`;
  return `
      ${pgTriggerFunctionReplaced('stat_rollup_hour_updated', `INSERT INTO stat_rollup_hour
        SELECT (bucket_ms / 3600000) * 3600000, account_id, api_key_id, model, ${list(S, (c) => `SUM(${c})`)}
        FROM ${changes} GROUP BY 1, model, account_id, api_key_id ORDER BY 1, 2, 3, 4
        ${addTo('stat_rollup_hour', KEYS)}`)}
      ${pgTriggerFunctionReplaced('stat_rollup_hour_model_updated', `INSERT INTO stat_rollup_hour_model
        SELECT bucket_ms, model, ${list(S, (c) => `SUM(${c})`)}
        FROM ${changes} GROUP BY 1, 2 ORDER BY 1, 2
        ${addTo('stat_rollup_hour_model', 'bucket_ms, model')}`)}
  `;
}
