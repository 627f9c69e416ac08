/**
 * The SQLite call log's rows land in `call_logs_staged` first and are indexed in bulk (a "move").
 *
 * Why: call_logs has five B-trees, and two of them (the breakdown's covering indexes) are led by
 * the key and by the account. A batch written straight into them rewrites a leaf, and its parents,
 * for every key and every account it holds, so a row cost ~18 us with one active key and ~55 us
 * with 200 (`KEYS=200 bench/log-insert.ts`, bench/README.md). A staged row goes into one B-tree at
 * its right edge (the ids are time-ordered); a move then inserts thousands of rows sorted by
 * account and key, one leaf per key per move, and adds the list counts and the rollup once per
 * group with the same statements.
 *
 * What stays as it was: a staged row is committed, so SIGKILL loses no more than before (a batch
 * window); any process's move takes every staged row, so a crashed one's rows move with the next
 * move, or at the next start (`moveLeftovers`). Reads move first (`settle`), so the log API and
 * statistics see every committed row as before; with no reads, rows move after `moveAfterMs` or
 * once `moveRows` are staged.
 */
import type Database from 'better-sqlite3';
import { INLINE_COLUMNS } from './bodies.ts';
import { addCountsFromSqlite } from './migrations-counts.ts';
import { BUCKET_MS } from './types.ts';

/** Staged rows that make a move at once: at 200 keys a row costs ~35 us moved by 2,000, ~28 by 10,000. */
export const MOVE_ROWS = 4_000;
/** The longest a staged row waits for a move when nothing reads the log. */
export const MOVE_AFTER_MS = 1_000;

/** The staged row's columns: call_logs' own as the writer fills them (the bodies go to call_log_bodies). */
export const STAGED_COLUMNS = [...INLINE_COLUMNS, 'input_cost_nano', 'output_cost_nano'];

/**
 * Migration 13: the staging table. Its NOT NULLs are call_logs' own, so a row call_logs would
 * refuse fails its batch (which the queue retries or spills) instead of every later move.
 */
export function stagedTableSqlite(): string {
  return `
      CREATE TABLE call_logs_staged (
        id TEXT NOT NULL PRIMARY KEY,
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
        latency_ms INTEGER NOT NULL,
        ttft_ms INTEGER,
        ip TEXT NOT NULL,
        user_agent TEXT NOT NULL,
        stream INTEGER NOT NULL,
        cache_hit INTEGER NOT NULL,
        input_cost TEXT NOT NULL,
        output_cost TEXT NOT NULL,
        currency TEXT NOT NULL,
        billed INTEGER NOT NULL,
        cache_similarity REAL,
        sanitized INTEGER NOT NULL,
        trace_id TEXT,
        input_cost_nano INTEGER NOT NULL,
        output_cost_nano INTEGER NOT NULL
      ) WITHOUT ROWID;
  `;
}

/** The statements of one move, in order, inside one transaction. */
function moveSql(): string[] {
  const cols = STAGED_COLUMNS.join(', ');
  const bucket = `created_at - ((created_at % ${BUCKET_MS}) + ${BUCKET_MS}) % ${BUCKET_MS}`;
  const billed = (c: string) => `SUM(CASE WHEN billed = 1 THEN ${c} ELSE 0 END)`;
  return [
    // A call already logged (a spilled batch written twice) is neither stored nor counted again.
    'DELETE FROM call_logs_staged WHERE EXISTS (SELECT 1 FROM call_logs c WHERE c.id = call_logs_staged.id)',
    ...addCountsFromSqlite('call_logs_staged'),
    `INSERT INTO stat_rollup (bucket_ms, account_id, api_key_id, model, request_count, prompt_tokens,
        completion_tokens, total_tokens, latency_sum, input_cost_nano, output_cost_nano)
      SELECT ${bucket}, account_id, api_key_id, model, COUNT(*), SUM(request_tokens), SUM(response_tokens),
        SUM(request_tokens + response_tokens), SUM(latency_ms), ${billed('input_cost_nano')}, ${billed('output_cost_nano')}
      FROM call_logs_staged GROUP BY 1, 2, 3, 4
      ON CONFLICT (bucket_ms, account_id, api_key_id, model) DO UPDATE SET
        request_count = request_count + excluded.request_count,
        prompt_tokens = prompt_tokens + excluded.prompt_tokens,
        completion_tokens = completion_tokens + excluded.completion_tokens,
        total_tokens = total_tokens + excluded.total_tokens,
        latency_sum = latency_sum + excluded.latency_sum,
        input_cost_nano = input_cost_nano + excluded.input_cost_nano,
        output_cost_nano = output_cost_nano + excluded.output_cost_nano`,
    // counted = 1: the statements above counted these rows, not the row trigger. Sorted by
    // account and key, each covering index is written at one place per key.
    `INSERT INTO call_logs (${cols}, attempts, counted)
      SELECT ${cols}, '[]', 1 FROM call_logs_staged ORDER BY account_id, api_key_id, created_at`,
    'DELETE FROM call_logs_staged',
  ];
}

export interface StagingOptions {
  moveRows?: number;
  moveAfterMs?: number;
}

export interface Staging {
  /** `n` rows were staged (committed): moves now if enough are waiting, else within `moveAfterMs`. */
  staged(n: number): void;
  /** Moves what this process staged, before a read. Throws what the move threw. */
  settle(): void;
  /** Moves whatever is staged (another process's too: one that died before its move). */
  moveLeftovers(): void;
  /** Stops the timer (the caller settles first). */
  dispose(): void;
}

/**
 * The moves of one connection. `inMemoryTemp` runs a write with its statement journal in memory
 * (sqlite.ts); the move's rollup and counts upserts fire triggers as a batch's did.
 */
export function createStaging(db: Database.Database, inMemoryTemp: (write: () => void) => void, options: StagingOptions = {}): Staging {
  const moveRows = options.moveRows ?? MOVE_ROWS;
  const moveAfterMs = options.moveAfterMs ?? MOVE_AFTER_MS;
  const statements = moveSql().map((sql) => db.prepare(sql));
  const move = db.transaction(() => {
    for (const statement of statements) statement.run();
  });
  const anyStaged = db.prepare('SELECT 1 FROM call_logs_staged LIMIT 1').pluck();
  let pending = 0;
  let timer: NodeJS.Timeout | undefined;

  const settle = () => {
    if (pending === 0) return;
    // IMMEDIATE: the write lock before anything is read, so processes sharing the file (cluster
    // workers) wait for each other's moves (busy_timeout) whatever the first statement is.
    inMemoryTemp(() => move.immediate());
    pending = 0;
    clearTimeout(timer);
    timer = undefined;
  };
  // In the background a failed move leaves its rows staged (committed) for the next try.
  const arm = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      settleOrRetry();
    }, moveAfterMs).unref();
  };
  const settleOrRetry = () => {
    try {
      settle();
    } catch {
      arm();
    }
  };

  return {
    staged(n) {
      pending += n;
      if (pending >= moveRows) settleOrRetry();
      else arm();
    },
    settle,
    moveLeftovers() {
      if (anyStaged.get() === undefined) return;
      pending = Math.max(pending, 1);
      settle();
    },
    dispose() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
