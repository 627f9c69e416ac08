/**
 * How a batch of log records crosses to the SQLite log worker (sqlite-threaded.ts → sqlite-worker.ts):
 * one flat array of the records' values in a fixed order, instead of the records themselves.
 *
 * Why: `postMessage` clones an object field by field, its key names included, and the worker
 * re-creates every key; a flat array of the same values clones in about a third of the time on
 * each side (bench/README.md, "the call log's hand-off"). The values themselves go as they are
 * (strings with NUL or lone surrogates, null, undefined, decimal strings, a NaN), so the worker
 * sees exactly what the structured clone of the record would have given it.
 *
 * Layout per record: the {@link SCALARS} fields in order, then the attempts: their count and, per
 * attempt, its key count (5, or 6 with `kind`) and its values. Attempts that are not plain
 * `{model, provider, status, error_code, latency_ms[, kind]}` objects in that key order (the
 * store keeps their JSON, extra keys and order included) go as the array itself, after a -1.
 */
import type { LogAttempt, LogRecord } from './types.ts';

/** A batch of records in wire form (see the layout above). */
export type PackedRecords = unknown[];

/** The record fields that go as plain values, in wire order (a test holds it to LogRecord). */
export const SCALARS = [
  'id', 'created_at', 'api_key_id', 'api_key_name', 'account_id', 'group_id', 'provider_id', 'model',
  'endpoint', 'request_tokens', 'response_tokens', 'cached_tokens', 'reasoning_tokens', 'status',
  'http_status', 'error_code', 'error_message', 'latency_ms', 'ttft_ms', 'ip', 'user_agent', 'stream',
  'cache_hit', 'cache_similarity', 'trace_id', 'input_cost', 'output_cost', 'currency', 'request',
  'response', 'billed', 'sanitized', 'guardrails',
] as const satisfies ReadonlyArray<keyof LogRecord>;

const ATTEMPT_KEYS = ['model', 'provider', 'status', 'error_code', 'latency_ms', 'kind'];
/** Attempts sent as they are (not a canonical array). */
const RAW_ATTEMPTS = -1;

/** The batch as one flat array (spelled out field by field: this runs for every logged call). */
export function packRecords(records: readonly LogRecord[]): PackedRecords {
  const v: unknown[] = [];
  for (const r of records) {
    v.push(
      r.id, r.created_at, r.api_key_id, r.api_key_name, r.account_id, r.group_id, r.provider_id, r.model,
      r.endpoint, r.request_tokens, r.response_tokens, r.cached_tokens, r.reasoning_tokens, r.status,
      r.http_status, r.error_code, r.error_message, r.latency_ms, r.ttft_ms, r.ip, r.user_agent, r.stream,
      r.cache_hit, r.cache_similarity, r.trace_id, r.input_cost, r.output_cost, r.currency, r.request,
      r.response, r.billed, r.sanitized, r.guardrails,
    );
    packAttempts(v, r.attempts);
  }
  return v;
}

function packAttempts(v: unknown[], attempts: LogAttempt[]): void {
  const start = v.length;
  if (Array.isArray(attempts)) {
    v.push(attempts.length);
    let canonical = true;
    for (const a of attempts) {
      const keys = keyCount(a);
      if (keys === 0) {
        canonical = false;
        break;
      }
      v.push(keys, a.model, a.provider, a.status, a.error_code, a.latency_ms);
      if (keys === 6) v.push(a.kind);
    }
    if (canonical) return;
    v.length = start;
  }
  v.push(RAW_ATTEMPTS, attempts);
}

/** 5 or 6 when `a` has exactly the canonical attempt keys in order, else 0. */
function keyCount(a: unknown): number {
  if (typeof a !== 'object' || a === null || Object.getPrototypeOf(a) !== Object.prototype) return 0;
  let n = 0;
  for (const key in a) {
    if (key !== ATTEMPT_KEYS[n]) return 0;
    n++;
  }
  return n >= 5 ? n : 0;
}

/** The records of a packed batch (in the worker). Optional fields left undefined stay undefined. */
export function unpackRecords(v: PackedRecords): LogRecord[] {
  const records: LogRecord[] = [];
  let i = 0;
  while (i < v.length) {
    const record: Required<LogRecord> = {
      id: v[i] as string, created_at: v[i + 1] as number, api_key_id: v[i + 2] as string,
      api_key_name: v[i + 3] as string, account_id: v[i + 4] as string, group_id: v[i + 5] as string | null,
      provider_id: v[i + 6] as string | null, model: v[i + 7] as string, endpoint: v[i + 8] as LogRecord['endpoint'],
      request_tokens: v[i + 9] as number, response_tokens: v[i + 10] as number, cached_tokens: v[i + 11] as number,
      reasoning_tokens: v[i + 12] as number, status: v[i + 13] as LogRecord['status'], http_status: v[i + 14] as number,
      error_code: v[i + 15] as string | null, error_message: v[i + 16] as string | null, latency_ms: v[i + 17] as number,
      ttft_ms: v[i + 18] as number | null, ip: v[i + 19] as string, user_agent: v[i + 20] as string,
      stream: v[i + 21] as boolean, cache_hit: v[i + 22] as boolean, cache_similarity: v[i + 23] as number | null,
      trace_id: v[i + 24] as string | null, input_cost: v[i + 25] as string, output_cost: v[i + 26] as string,
      currency: v[i + 27] as string, request: v[i + 28] as string | null, response: v[i + 29] as string | null,
      billed: v[i + 30] as boolean, sanitized: v[i + 31] as boolean, guardrails: v[i + 32] as LogRecord['guardrails'] & object,
      attempts: [],
    };
    i += SCALARS.length;
    const count = v[i++] as number;
    if (count === RAW_ATTEMPTS) {
      record.attempts = v[i++] as LogAttempt[];
    } else {
      for (let n = 0; n < count; n++) {
        const keys = v[i] as number;
        const attempt: LogAttempt = {
          model: v[i + 1] as string, provider: v[i + 2] as string | null, status: v[i + 3] as number | null,
          error_code: v[i + 4] as string | null, latency_ms: v[i + 5] as number,
        };
        if (keys === 6) attempt.kind = v[i + 6] as LogAttempt['kind'];
        record.attempts.push(attempt);
        i += keys + 1;
      }
    }
    records.push(record);
  }
  return records;
}
