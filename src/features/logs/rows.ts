/**
 * Conversions between `LogRecord`, database rows and the API shapes, shared by both stores so
 * that SQLite and PostgreSQL answer byte-for-byte alike.
 */
import { addDecimal, decimalToNumber, fromScaled, toScaled } from '../../kernel/decimal.ts';
import { storableJson, storableText } from './storable.ts';
import { BUCKET_MS, logEndpoint } from './types.ts';
import type { LogAttempt, LogDetail, LogGuardrail, LogListItem, LogRecord } from './types.ts';

/** Insert column order (both stores; SQLite adds the two `*_nano` columns at the end). */
export const LOG_COLUMNS = [
  'id', 'created_at', 'api_key_id', 'api_key_name', 'account_id', 'group_id', 'provider_id', 'model',
  'endpoint', 'request_tokens', 'response_tokens', 'cached_tokens', 'reasoning_tokens', 'status',
  'http_status', 'error_code', 'error_message', 'latency_ms', 'ttft_ms', 'ip', 'user_agent', 'stream',
  'cache_hit', 'attempts', 'input_cost', 'output_cost', 'currency', 'request', 'response', 'billed',
  'cache_similarity', 'sanitized', 'trace_id', 'guardrails',
] as const;

/** Columns of the list query (kept narrow: bodies are never read for lists). */
export const LIST_COLUMNS =
  'id, api_key_id, api_key_name, model, request_tokens, response_tokens, status, latency_ms, ip, created_at, ' +
  'account_id, group_id, provider_id, endpoint, error_code, ttft_ms, input_cost, output_cost, currency, billed';

/**
 * Coerces a record to what the schema accepts, so one odd value (a float token count, a
 * non-decimal cost) cannot make a whole batch fail over and over, and every text to what both
 * stores hold (storable.ts): a client's lone surrogate or NUL must never cost the call its row.
 * `sanitized` says when the stored copy differs from what the gateway saw.
 */
export function normalizeRecord(r: LogRecord): LogRecord {
  let changed = false;
  const text = (v: unknown): string => {
    const s = str(v);
    const stored = storableText(s);
    if (stored !== s) changed = true;
    return stored;
  };
  const optionalText = (v: unknown): string | null => (v == null ? null : text(v));
  const body = (v: unknown): string | null => {
    const s = bodyText(v);
    if (s === null) return null;
    const stored = storableJson(s);
    if (stored !== s) changed = true;
    return stored;
  };
  // Every field spelled out (no spread of `r`): one object shape for every row, built at a
  // fraction of the cost of copying a record and then overwriting all of its fields.
  const row: LogRecord = {
    id: text(r.id),
    created_at: int(r.created_at),
    api_key_id: text(r.api_key_id),
    api_key_name: text(r.api_key_name),
    account_id: text(r.account_id),
    group_id: optionalText(r.group_id),
    provider_id: optionalText(r.provider_id),
    model: text(r.model),
    endpoint: logEndpoint(r.endpoint),
    request_tokens: int(r.request_tokens),
    response_tokens: int(r.response_tokens),
    cached_tokens: int(r.cached_tokens),
    reasoning_tokens: int(r.reasoning_tokens),
    status: r.status === 'success' ? 'success' : 'error',
    http_status: int(r.http_status),
    error_code: optionalText(r.error_code),
    error_message: optionalText(r.error_message),
    latency_ms: int(r.latency_ms),
    ttft_ms: r.ttft_ms == null ? null : int(r.ttft_ms),
    ip: text(r.ip),
    user_agent: text(r.user_agent),
    stream: Boolean(r.stream),
    cache_hit: Boolean(r.cache_hit),
    cache_similarity: typeof r.cache_similarity === 'number' && Number.isFinite(r.cache_similarity) ? r.cache_similarity : null,
    trace_id: typeof r.trace_id === 'string' && /^[0-9a-f]{32}$/.test(r.trace_id) ? r.trace_id : null,
    attempts: Array.isArray(r.attempts)
      ? r.attempts.map((a) => ({ ...a, model: text(a?.model), provider: optionalText(a?.provider), error_code: optionalText(a?.error_code) }))
      : [],
    input_cost: decimal(r.input_cost),
    output_cost: decimal(r.output_cost),
    currency: text(r.currency) || 'CNY',
    request: body(r.request),
    response: body(r.response),
    billed: Boolean(r.billed),
    sanitized: false,
    guardrails: Array.isArray(r.guardrails) && r.guardrails.length ? r.guardrails : null,
  };
  // Kept once set: a record normalized again (a retried batch, a spill file) still says so.
  row.sanitized = changed || Boolean(r.sanitized);
  return row;
}

/** The rollup bucket (15-minute UTC) a record falls in. */
export function bucketOf(ms: number): number {
  return Math.floor(ms / BUCKET_MS) * BUCKET_MS;
}

/** A database row (either store) as a spec 2.5 list item, plus our additive fields. */
export function toListItem(row: Record<string, unknown>): LogListItem {
  const input = String(row.input_cost);
  const output = String(row.output_cost);
  return {
    id: String(row.id),
    api_key_id: String(row.api_key_id),
    api_key_name: String(row.api_key_name),
    model: String(row.model),
    request_tokens: Number(row.request_tokens),
    response_tokens: Number(row.response_tokens),
    status: row.status as LogListItem['status'],
    latency: Math.round(Number(row.latency_ms)),
    ip: String(row.ip),
    created_at: new Date(Number(row.created_at)).toISOString(),
    account_id: String(row.account_id),
    group_id: (row.group_id as string | null) ?? null,
    provider: (row.provider_id as string | null) ?? null,
    endpoint: logEndpoint(row.endpoint),
    error_code: (row.error_code as string | null) ?? null,
    ttft_ms: row.ttft_ms == null ? null : Number(row.ttft_ms),
    billed: Boolean(row.billed),
    cost: {
      input: decimalToNumber(input, 12),
      output: decimalToNumber(output, 12),
      total: decimalToNumber(addDecimal(input, output), 12),
      currency: String(row.currency),
    },
  };
}

/** A full database row (either store) as the detail record. */
export function toDetail(row: Record<string, unknown>): LogDetail {
  const input = String(row.input_cost);
  const output = String(row.output_cost);
  return {
    ...toListItem(row),
    request: json(row.request) as LogDetail['request'],
    response: json(row.response) as LogDetail['response'],
    error_code: (row.error_code as string | null) ?? null,
    error_message: (row.error_message as string | null) ?? null,
    user_agent: String(row.user_agent),
    account_id: String(row.account_id),
    group_id: (row.group_id as string | null) ?? null,
    provider: (row.provider_id as string | null) ?? null,
    endpoint: row.endpoint as LogDetail['endpoint'],
    http_status: Number(row.http_status),
    cached_tokens: Number(row.cached_tokens),
    reasoning_tokens: Number(row.reasoning_tokens),
    attempts: (json(row.attempts) as LogAttempt[] | null) ?? [],
    stream: Boolean(row.stream),
    cache_hit: Boolean(row.cache_hit),
    cache: row.cache_hit ? (row.cache_similarity == null ? 'hit' : 'semantic-hit') : null,
    cache_similarity: row.cache_similarity == null ? null : Number(row.cache_similarity),
    trace_id: (row.trace_id as string | null | undefined) ?? null,
    ttft_ms: row.ttft_ms == null ? null : Number(row.ttft_ms),
    billed: Boolean(row.billed),
    sanitized: Boolean(row.sanitized),
    guardrails: (json(row.guardrails) as LogGuardrail[] | null) ?? [],
    cost: {
      input: decimalToNumber(input, 12),
      output: decimalToNumber(output, 12),
      total: decimalToNumber(addDecimal(input, output), 12),
      currency: String(row.currency),
    },
  };
}

/** A body as JSON text; anything that is not a string (an older caller's object) is serialised. */
function bodyText(v: unknown): string | null {
  if (v == null) return null;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function json(v: unknown): unknown {
  if (v == null) return null;
  return typeof v === 'string' ? JSON.parse(v) : v;
}

function int(v: unknown): number {
  const n = Math.round(Number(v));
  return Number.isFinite(n) ? n : 0;
}

function str(v: unknown): string {
  return v == null ? '' : String(v);
}

/** A decimal as fromScaled writes it at 12 places: no leading or trailing zeros, no "-0". */
const CANONICAL_DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d{0,11}[1-9])?$/;

function decimal(v: unknown): string {
  // Costs arrive written this way (the log step's costOf): nothing to parse again.
  if (typeof v === 'string' && CANONICAL_DECIMAL.test(v) && v !== '-0') return v;
  try {
    return fromScaled(toScaled(v as string | number));
  } catch {
    return '0';
  }
}
