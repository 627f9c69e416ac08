/**
 * The billing rules: turns a call record into the ledger row the log store keeps. One row per
 * request id (the store ignores a replayed id), costs as exact decimals at the prices in force
 * at call time (carried by the record, never looked up again).
 *
 * Rules (see README "Billing"):
 * - A call that an upstream answered is billed for its tokens: the upstream's usage when it
 *   reported one, else the estimate from the request and the streamed text (`tokens_estimated`).
 *   This covers partial answers: a client that disconnects, or a stream that broke after it
 *   started, pays for what was generated, never for a whole answer and never zero.
 * - An upstream 4xx, any refusal by the gateway (auth, permission, rate limit, quota) and an
 *   upstream failure before any content are not billed: no tokens were generated.
 * - A cache hit is not billed: no upstream tokens were bought. Its tokens still count in usage
 *   statistics (they were delivered), with a zero cost.
 */
import { costOf } from '../../kernel/decimal.ts';
import { logEndpoint, type LogRecord } from './types.ts';
import type { CallRecord } from '../../plugins/log-record.ts';

/** Whether a call is billed, by the rules above. */
export function isBilled(call: CallRecord): boolean {
  if (call.cache_hit || !call.served) return false;
  return call.request_tokens + call.response_tokens > 0;
}

/** The ledger row of a finished call. */
export function toLogRecord(call: CallRecord): LogRecord {
  const billed = isBilled(call);
  return {
    id: call.id,
    created_at: call.created_at,
    api_key_id: call.api_key_id,
    api_key_name: call.api_key_name,
    account_id: call.account_id,
    group_id: call.group_id,
    provider_id: call.provider_id,
    model: call.model,
    endpoint: logEndpoint(call.endpoint),
    request_tokens: call.request_tokens,
    response_tokens: call.response_tokens,
    cached_tokens: call.cached_tokens,
    reasoning_tokens: call.reasoning_tokens,
    status: call.status,
    http_status: call.http_status,
    error_code: call.error_code,
    error_message: call.error_message,
    latency_ms: Math.max(0, Math.round(call.latency_ms)),
    ttft_ms: call.ttft_ms == null ? null : Math.max(0, Math.round(call.ttft_ms)),
    ip: call.ip,
    user_agent: call.user_agent,
    stream: call.stream,
    cache_hit: call.cache_hit,
    cache_similarity: call.cache_similarity ?? null,
    trace_id: call.trace_id ?? null,
    guardrails: call.guardrails ?? null,
    attempts: call.attempts.map((a) => ({
      model: a.model,
      provider: a.provider ?? null,
      status: a.status || null,
      error_code: a.errorCode,
      latency_ms: Math.max(0, Math.round(a.latencyMs)),
      ...(a.kind ? { kind: a.kind } : {}),
    })),
    input_cost: billed ? costOf(call.request_tokens, call.input_price) : '0',
    output_cost: billed ? costOf(call.response_tokens, call.output_price) : '0',
    currency: call.currency,
    request: call.request,
    response: call.response,
    billed,
  };
}

/**
 * The billing fields of a ledger row, for a log line when the row itself is lost (a full queue, a
 * record the store refuses, a shutdown whose spill file cannot be written): enough for the log
 * collector to keep the bill. Never the bodies, the client's address or error texts; no key
 * material (only the key's id). No field is named like the logger's own `level`, `time` or `msg`.
 */
export function billingTrace(record: LogRecord): Record<string, unknown> {
  return {
    id: record.id,
    created_at: isoTime(record.created_at),
    account_id: record.account_id,
    api_key_id: record.api_key_id,
    provider_id: record.provider_id,
    model: record.model,
    endpoint: record.endpoint,
    status: record.status,
    http_status: record.http_status,
    request_tokens: record.request_tokens,
    response_tokens: record.response_tokens,
    cached_tokens: record.cached_tokens,
    reasoning_tokens: record.reasoning_tokens,
    billed: record.billed,
    input_cost: record.input_cost,
    output_cost: record.output_cost,
    currency: record.currency,
  };
}

/** A drop path must never throw: a time `Date` cannot show is passed through as it is. */
function isoTime(ms: number): string | number {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? ms : date.toISOString();
}
