/**
 * The call-log store: one row per inference call (the billing ledger) plus the rollups the
 * statistics read. Two implementations share this contract: SQLite (embedded default) and
 * PostgreSQL (`DATABASE_URL`).
 */
import type { GuardrailVerdict } from '../../pipeline/outcome.ts';

/** One upstream attempt of a call (fallbacks make several). */
export interface LogAttempt {
  model: string;
  provider: string | null;
  status: number | null;
  error_code: string | null;
  latency_ms: number;
  /**
   * `retry`, `fallback`, `resumed` (continued a cut stream) or `hedged` (started beside a late
   * call; the loser of the race has error_code `hedge_cancelled`); absent for older rows.
   */
  kind?: 'first' | 'retry' | 'fallback' | 'resumed' | 'hedged';
}

/** One guardrail's verdict on a call, stored as the pipeline recorded it: never the text it matched. */
export type LogGuardrail = GuardrailVerdict;

/** What the log pipeline step writes per inference call. */
/** The inference interface a call came in through. */
export type LogEndpoint = 'chat' | 'responses' | 'embeddings' | 'messages' | 'generate_content';

export const LOG_ENDPOINTS: ReadonlySet<string> = new Set<LogEndpoint>(['chat', 'responses', 'embeddings', 'messages', 'generate_content']);

/** A stored or received endpoint name as one of ours (old rows and unknown values count as chat). */
export const logEndpoint = (value: unknown): LogEndpoint => (typeof value === 'string' && LOG_ENDPOINTS.has(value) ? (value as LogEndpoint) : 'chat');

export interface LogRecord {
  /** `req_` + 32 hex digits, time first (see `createRequestId`); also the request id. Unique: the ledger key. */
  id: string;
  /** Milliseconds since the epoch. */
  created_at: number;
  api_key_id: string;
  api_key_name: string;
  account_id: string;
  group_id: string | null;
  provider_id: string | null;
  /** The model as the client named it (or the fallback that served). */
  model: string;
  endpoint: LogEndpoint;
  request_tokens: number;
  response_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  status: 'success' | 'error';
  http_status: number;
  error_code: string | null;
  error_message: string | null;
  latency_ms: number;
  ttft_ms: number | null;
  ip: string;
  user_agent: string;
  stream: boolean;
  cache_hit: boolean;
  /** A semantic-cache hit: the cosine similarity of the stored prompt that answered (else null). */
  cache_similarity?: number | null;
  /** The request's OpenTelemetry trace id (32 hex digits) while tracing is on, else null. */
  trace_id?: string | null;
  attempts: LogAttempt[];
  /** Exact decimal strings (see `costOf`), computed with the prices in force at call time. */
  input_cost: string;
  output_cost: string;
  currency: string;
  /**
   * The bodies as JSON text of an object (the request as the client sent it, the answer as the
   * client received it): stored as is. Null when the account's request_logging is off.
   */
  request: string | null;
  response: string | null;
  /** Whether the call counts for billing; only billed calls add to cost statistics. */
  billed: boolean;
  /**
   * Set by the store (storable.ts): some text held what a store cannot (NUL, a lone surrogate, a
   * number outside NUMERIC) and the stored copy has a replacement there. Absent: false.
   */
  sanitized?: boolean;
  /** The guardrails that ran and their verdicts (never the matched text); absent or null when none did. */
  guardrails?: LogGuardrail[] | null;
}

/** Filters of the log list (spec 4.5); times in ms, both bounds inclusive. */
export interface LogFilter {
  start_time?: number;
  end_time?: number;
  api_key_id?: string;
  model?: string;
  status?: 'success' | 'error';
  account_id?: string;
  /** The provider that served (or last failed) the call. */
  provider?: string;
  error_code?: string;
  endpoint?: LogEndpoint;
}

/** A log list item (spec 2.5). */
export interface LogListItem {
  id: string;
  api_key_id: string;
  api_key_name: string;
  model: string;
  request_tokens: number;
  response_tokens: number;
  status: 'success' | 'error';
  latency: number;
  ip: string;
  /** ISO 8601 UTC. */
  created_at: string;
  // Additive fields (not in spec 2.5), so that a list answers who, where and how much without a detail read.
  account_id: string;
  group_id: string | null;
  provider: string | null;
  endpoint: LogEndpoint;
  error_code: string | null;
  ttft_ms: number | null;
  billed: boolean;
  cost: { input: number; output: number; total: number; currency: string };
}

/** A single log (spec 2.5 detail record) plus our extras. */
export interface LogDetail {
  id: string;
  api_key_id: string;
  api_key_name: string;
  model: string;
  request: Record<string, unknown> | null;
  response: Record<string, unknown> | null;
  status: 'success' | 'error';
  error_code: string | null;
  error_message: string | null;
  latency: number;
  ip: string;
  user_agent: string;
  created_at: string;
  account_id: string;
  group_id: string | null;
  provider: string | null;
  endpoint: LogEndpoint;
  http_status: number;
  request_tokens: number;
  response_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  attempts: LogAttempt[];
  stream: boolean;
  cache_hit: boolean;
  /** `semantic-hit`: answered by the semantic cache, with `cache_similarity`. */
  cache: 'hit' | 'semantic-hit' | null;
  cache_similarity: number | null;
  /** The request's trace (OpenTelemetry), so a log row leads to it; null when tracing was off. */
  trace_id: string | null;
  ttft_ms: number | null;
  billed: boolean;
  /** The stored text differs from what the gateway saw: NUL and lone surrogates became U+FFFD (see README "Call logs"). */
  sanitized: boolean;
  /** The guardrails that ran and their verdicts (empty when none did). */
  guardrails: LogGuardrail[];
  /** Amounts as JSON numbers (exact decimal strings are in the store). */
  cost: { input: number; output: number; total: number; currency: string };
}

/** Which columns a rollup query groups by. */
export type RollupGrouping = 'bucket' | 'hour' | 'model';

/**
 * Aggregated rollup rows. Grouped by `bucket`: one row per 15-minute UTC bucket (`model` is
 * ''); by `hour`: one per UTC hour (`bucket_ms` its start; for ranges whose local days start on
 * whole hours); by `model`: one row per model (`bucket_ms` is 0).
 */
export interface RollupRow {
  bucket_ms: number;
  model: string;
  request_count: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  latency_sum: number;
  /** Exact decimal strings (billed calls only). */
  input_cost: string;
  output_cost: string;
}

export interface RollupFilter {
  api_key_id?: string;
  /** Undefined: all accounts (admin view). */
  account_id?: string;
  /** Only these 15-minute buckets (their start, ms): the few a range reads at the finer grain. */
  buckets?: readonly number[];
}

/** The width of a rollup bucket: every real UTC offset is a multiple of 15 minutes. */
export const BUCKET_MS = 15 * 60_000;
/**
 * The rollup a query reads: 15-minute rows, or hourly ones when the range allows, and over all
 * accounts the hourly sums per model alone (no account or key: ~20 times fewer rows).
 */
export type RollupTable = 'stat_rollup' | 'stat_rollup_hour' | 'stat_rollup_hour_model';

/** The width of the hourly rollup (stat_rollup_hour). */
export const HOUR_MS = 60 * 60_000;

/** The rollup that answers a query (see RollupTable). */
export function rollupTable(fromMs: number, toMs: number, filter: RollupFilter, groupBy: RollupGrouping): RollupTable {
  const hourly = groupBy === 'hour' || (groupBy === 'model' && fromMs % HOUR_MS === 0 && toMs % HOUR_MS === 0);
  if (!hourly) return 'stat_rollup';
  const allAccounts = filter.account_id === undefined && filter.api_key_id === undefined && filter.buckets === undefined;
  return allAccounts ? 'stat_rollup_hour_model' : 'stat_rollup_hour';
}

/** What a breakdown groups the calls by (`group`: the key's group; `provider`: the one that served). */
export type LogGroupBy = 'model' | 'provider' | 'key' | 'account' | 'group';

/** One group of a breakdown: sums over its calls and nearest-rank percentiles (ms). */
export interface LogGroupStats {
  /** The model, provider, key, account or group id; '' for none (no provider served, no group). */
  id: string;
  /** For `key`: the key's name on its newest call (the id when that name is empty); else the id. */
  name: string;
  request_count: number;
  error_count: number;
  total_tokens: number;
  /** Exact decimal: input plus output cost of the group's billed calls. */
  billed_cost: string;
  ttft_p50: number | null;
  ttft_p95: number | null;
  latency_p50: number | null;
  latency_p95: number | null;
}

/** The groups of the newest `limit` calls, and whether more calls matched than were folded. */
export interface LogBreakdown {
  groups: LogGroupStats[];
  truncated: boolean;
}

export interface LogStore {
  /** `sqlite` or `postgres`, for the status page. */
  readonly kind: 'sqlite' | 'postgres';
  /** Applies pending schema migrations (idempotent; safe with several instances). */
  migrate(): Promise<void>;
  /**
   * Writes records and their rollups in one transaction. Idempotent per id: a record whose id is
   * already stored is ignored and not counted again (the billing ledger rule).
   */
  insertBatch(records: LogRecord[]): Promise<void>;
  /** Newest first; `page` starts at 1. A page past the end gives no items and the right total. */
  list(filter: LogFilter, page: number, pageSize: number): Promise<{ items: LogListItem[]; total: number }>;
  get(id: string): Promise<LogDetail | null>;
  /**
   * The newest `limit` calls matching `filter` (the list's order), grouped by `by`, in one query;
   * `truncated` when more calls match.
   */
  breakdown(filter: LogFilter, by: LogGroupBy, limit: number): Promise<LogBreakdown>;
  /** Deletes log rows created before `ms` (rollups stay, so statistics keep their history). */
  deleteOlderThan(ms: number): Promise<number>;
  /** Rollup sums over buckets starting in [fromMs, toMs), ordered by bucket, hour or model. */
  rollup(fromMs: number, toMs: number, filter: RollupFilter, groupBy: RollupGrouping): Promise<RollupRow[]>;
  /** Round-trip time of a trivial query, in ms; rejects when the database is unreachable. */
  ping(): Promise<number>;
  close(): Promise<void>;
}
