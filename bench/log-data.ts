/**
 * The call log the log-query benchmark fills a store with: `rows` calls spread evenly over 30
 * days (March 2024), in time order as a gateway writes them, deterministic (a seeded PRNG) so that
 * runs compare. 20 keys in 5 accounts (key i belongs to account i % 5), 6 models each served by
 * its provider (a few calls fall back to a second one), five endpoints (chat most), ~3 % errors
 * over five codes, small bodies, costs at each model's price.
 */
import { costOf } from '../src/kernel/decimal.ts';
import type { LogEndpoint, LogRecord } from '../src/features/logs/types.ts';
import { seededRandom as rng } from '../src/kernel/seeded-random.ts';

export const DATA_START = Date.parse('2024-03-01T00:00:00Z');
export const DATA_DAYS = 30;
export const KEYS = 20;
export const ACCOUNTS = 5;
/** Model, the provider that serves it, input and output price per 1k tokens. */
export const MODELS = [
  ['gpt-4o', 'openai', 0.0025, 0.01],
  ['gpt-4o-mini', 'openai', 0.00015, 0.0006],
  ['claude-sonnet', 'anthropic', 0.003, 0.015],
  ['gemini-pro', 'google', 0.00125, 0.005],
  ['qwen-max', 'dashscope', 0.0024, 0.0096],
  ['deepseek-chat', 'deepseek', 0.001, 0.002],
] as const;
/** Where a call's model falls back to (1 % of the calls): another provider served it. */
const FALLBACK_PROVIDER = 'azure';
/** Endpoint and its share of the calls (cumulative). */
const ENDPOINTS: ReadonlyArray<[LogEndpoint, number]> = [
  ['chat', 0.7], ['responses', 0.85], ['messages', 0.93], ['embeddings', 0.98], ['generate_content', 1],
];
export const ERROR_CODES = ['upstream_unavailable', 'upstream_timeout', 'rate_limit_exceeded', 'upstream_error', 'invalid_request'] as const;
const ERROR_RATE = 0.03;
const DAY = 86_400_000;

/** The request id of call `i` as the gateway makes it: time first (request-id.ts), then 20 hex digits. */
export function benchId(i: number, createdAt: number): string {
  return `req_${createdAt.toString(16).padStart(12, '0')}${i.toString(16).padStart(20, '0')}`;
}

/** The time of call `i` of `rows` (evenly spread, so the n-th call of a day is predictable). */
export const timeOf = (i: number, rows: number) => DATA_START + Math.floor((i / rows) * DATA_DAYS * DAY);

/** Yields the calls in batches of `batch`, oldest first. */
export function* benchBatches(rows: number, batch: number): Generator<LogRecord[]> {
  const rand = rng(42);
  for (let i = 0; i < rows; i += batch) {
    const out: LogRecord[] = [];
    for (let j = i; j < Math.min(rows, i + batch); j++) out.push(benchRecord(j, timeOf(j, rows), rand));
    yield out;
  }
}

function benchRecord(i: number, createdAt: number, rand: () => number): LogRecord {
  const key = Math.floor(rand() * KEYS);
  const [model, provider, inPrice, outPrice] = MODELS[Math.floor(rand() * MODELS.length)]!;
  const e = rand();
  const endpoint = ENDPOINTS.find(([, upTo]) => e < upTo)![0];
  const failed = rand() < ERROR_RATE;
  const errorCode = failed ? ERROR_CODES[Math.floor(rand() * ERROR_CODES.length)]! : null;
  const prompt = 20 + Math.floor(rand() * 2000);
  const completion = failed || endpoint === 'embeddings' ? 0 : Math.floor(rand() * 800);
  const fellBack = rand() < 0.01;
  const servedBy = fellBack ? FALLBACK_PROVIDER : provider;
  const latency = 150 + Math.floor(rand() * 3000);
  const stream = endpoint !== 'embeddings' && rand() < 0.5;
  return {
    id: benchId(i, createdAt), created_at: createdAt,
    api_key_id: `key_${key}`, api_key_name: `Key ${key}`, account_id: `acct_${key % ACCOUNTS}`, group_id: key % 4 === 0 ? `grp_${key % 3}` : null,
    provider_id: servedBy, model, endpoint, request_tokens: prompt, response_tokens: completion,
    cached_tokens: 0, reasoning_tokens: 0, status: failed ? 'error' : 'success', http_status: failed ? 502 : 200,
    error_code: errorCode, error_message: failed ? 'the upstream failed' : null, latency_ms: latency,
    ttft_ms: stream ? Math.floor(latency / 4) : null, ip: `10.0.${key}.${1 + (i % 200)}`, user_agent: 'OpenAI/JS 4.0',
    stream, cache_hit: false,
    attempts: fellBack
      ? [{ model, provider, status: 503, error_code: 'upstream_unavailable', latency_ms: 40, kind: 'first' },
        { model, provider: servedBy, status: failed ? 502 : 200, error_code: errorCode, latency_ms: latency - 40, kind: 'fallback' }]
      : [{ model, provider, status: failed ? 502 : 200, error_code: errorCode, latency_ms: latency, kind: 'first' }],
    input_cost: costOf(prompt, inPrice), output_cost: costOf(completion, outPrice), currency: 'CNY',
    request: JSON.stringify({ model, messages: [{ role: 'user', content: `Question ${i % 997}: say hello.` }], temperature: 0.7 }),
    response: failed ? null : JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there!' } }], usage: { prompt_tokens: prompt, completion_tokens: completion } }),
    billed: !failed,
  };
}
