/**
 * The call record the log step writes for one exchange. Costs use the prices in force when the
 * call was made (the snapshot the request started with), so later price changes never
 * rewrite history. Token counts are the upstream's usage when it reported one; otherwise
 * (client gone, stream cut before the usage chunk) they are estimated from the request and
 * from the text actually streamed, and `tokens_estimated` says so.
 */
import { estimatePromptTokens, estimateTokens } from '../kernel/estimate-tokens.ts';
import type { GatewayContext } from '../pipeline/context.ts';
import { answeredFromCache, generatedText, type Outcome } from '../pipeline/outcome.ts';
import type { LogRecord } from '../features/logs/types.ts';

/** The ledger row's fields that the pipeline knows as they are (costs and billing come later). */
type ObservedFields = Omit<LogRecord, 'endpoint' | 'attempts' | 'input_cost' | 'output_cost' | 'billed' | 'request' | 'response'>;

export interface CallRecord extends ObservedFields {
  endpoint: string;
  /** True when the counts are estimates (no upstream usage). */
  tokens_estimated: boolean;
  aborted: boolean;
  /** An upstream answered (the call reached a model and produced content). */
  served: boolean;
  attempts: Outcome['attempts'];
  /** Prices in force at call time (per thousand tokens); the log service turns them into costs. */
  input_price: number;
  output_price: number;
  /** The bodies as JSON text (null when not logged). */
  request: string | null;
  response: string | null;
}

/** Where finished calls go (the log queue). */
export interface LogSink {
  enqueue(record: CallRecord): void;
}

export function buildLogRecord(ctx: GatewayContext, outcome: Outcome): CallRecord {
  const principal = ctx.principal!;
  const served = outcome.served;
  const model = served ? ctx.snapshot.models.get(served.model) ?? findModel(ctx, served.provider, served.upstreamModel) : undefined;
  const usage = outcome.usage;
  // Only an answer that produced something can be estimated; an upstream error generated nothing.
  const generated = usage ? '' : generatedText(outcome);
  const estimate = !usage && served !== undefined && generated.length > 0;
  const logBodies = ctx.settings.security.request_logging;
  return {
    id: ctx.id,
    created_at: ctx.startedAt,
    endpoint: ctx.endpoint,
    api_key_id: principal.key?.id ?? principal.kind,
    api_key_name: principal.key?.name ?? principal.kind,
    account_id: principal.accountId,
    group_id: principal.groupId ?? null,
    // A failed call names the provider of its last attempt, so that a provider's errors can be listed.
    provider_id: served?.provider ?? outcome.attempts.at(-1)?.provider ?? null,
    model: served?.model ?? ctx.body.model ?? '',
    request_tokens: usage?.prompt_tokens ?? (estimate ? estimatePromptTokens(ctx.body.messages) : 0),
    response_tokens: usage?.completion_tokens ?? (estimate ? estimateTokens(generated) : 0),
    cached_tokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
    reasoning_tokens: usage?.completion_tokens_details?.reasoning_tokens ?? 0,
    tokens_estimated: estimate,
    status: outcome.status === 200 && !outcome.error && !outcome.aborted ? 'success' : 'error',
    http_status: outcome.status,
    // An upstream error without a code keeps its type, so a failed call always has an error_code.
    error_code: outcome.error ? (outcome.error.code ?? outcome.error.type) : outcome.aborted ? 'client_closed' : null,
    error_message: outcome.error?.message ?? (outcome.aborted ? 'The client closed the connection before the answer ended.' : null),
    latency_ms: outcome.durationMs,
    ttft_ms: outcome.ttfbMs ?? null,
    ip: ctx.ip,
    user_agent: ctx.request.headers.get('user-agent') ?? '',
    stream: outcome.streamed,
    cache_hit: answeredFromCache(outcome),
    cache_similarity: outcome.cache === 'semantic-hit' ? (outcome.cacheSimilarity ?? null) : null,
    trace_id: ctx.trace?.traceId ?? null,
    guardrails: outcome.guardrails ?? null,
    aborted: outcome.aborted,
    served: served !== undefined,
    attempts: outcome.attempts,
    input_price: model?.input_price ?? 0,
    output_price: model?.output_price ?? 0,
    currency: ctx.snapshot.config.billing.currency, // the prices' currency: costs are computed in it
    request: logBodies ? requestText(ctx, outcome) : null,
    response: logBodies ? responseText(outcome) : null,
  };
}

/**
 * The request as the client sent it; once an input guardrail redacted it, the body as it went on
 * (chat-shaped): the log must not keep what the guardrail kept from the upstream.
 */
function requestText(ctx: GatewayContext, outcome: Outcome): string | null {
  if (outcome.guardrails?.some((v) => v.stage === 'input' && v.result === 'redacted')) return jsonText(ctx.body);
  return ctx.rawBodyText ?? jsonText(ctx.rawBody);
}

/**
 * The answer as JSON text: the text sent when there is one, else serialised here; a stream as
 * the completion it assembled to, the same shape as a non-streamed answer.
 */
function responseText(outcome: Outcome): string | null {
  if (outcome.responseText !== undefined) return outcome.responseText;
  if (outcome.response !== undefined) return jsonText(outcome.response);
  if (outcome.assembly && !outcome.assembly.empty) return JSON.stringify(outcome.assembly.completion(outcome.usage));
  return outcome.text ? JSON.stringify({ text: outcome.text }) : null;
}

/** JSON text of a body object; null for nothing; a non-object value is wrapped as `{value}`. */
function jsonText(value: unknown): string | null {
  if (value == null) return null;
  return JSON.stringify(typeof value === 'object' && !Array.isArray(value) ? value : { value });
}

function findModel(ctx: GatewayContext, providerId: string, upstreamModel: string) {
  for (const model of ctx.snapshot.models.values()) {
    if (model.provider === providerId && (model.upstream_model ?? model.id) === upstreamModel) return model;
  }
  return undefined;
}
