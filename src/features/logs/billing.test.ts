import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../plugins/log-record.ts';
import { isBilled, toLogRecord } from './billing.ts';
import { estimatePromptTokens, estimateTokens } from '../../kernel/estimate-tokens.ts';

function call(overrides: Partial<CallRecord> = {}): CallRecord {
  return {
    id: 'req_1',
    created_at: 1_700_000_000_000,
    endpoint: 'chat',
    api_key_id: 'k',
    api_key_name: 'Key',
    account_id: 'a',
    group_id: 'g',
    provider_id: 'p',
    model: 'm',
    request_tokens: 1000,
    response_tokens: 500,
    cached_tokens: 0,
    reasoning_tokens: 0,
    tokens_estimated: false,
    status: 'success',
    http_status: 200,
    error_code: null,
    error_message: null,
    latency_ms: 12.6,
    ttft_ms: null,
    ip: '127.0.0.1',
    user_agent: 'ua',
    stream: false,
    cache_hit: false,
    aborted: false,
    served: true,
    attempts: [{ model: 'm', provider: 'p', upstreamModel: 'm', status: 200, errorCode: null, latencyMs: 10, kind: 'first' }],
    input_price: 0.1,
    output_price: 0.3,
    currency: 'USD',
    request: '{"messages":[]}',
    response: null,
    ...overrides,
  };
}

describe('billing rules', () => {
  it('bills served calls exactly, in decimal, at the prices carried by the record', () => {
    const r = toLogRecord(call());
    expect(r).toMatchObject({ billed: true, input_cost: '0.1', output_cost: '0.15', currency: 'USD', latency_ms: 13 });
    // No float drift: 0.1 + 0.2 style prices stay exact.
    expect(toLogRecord(call({ request_tokens: 3, input_price: 0.1 })).input_cost).toBe('0.0003');
  });

  it('does not bill upstream 4xx, gateway refusals, failures before content, or cache hits', () => {
    const upstream400 = call({ served: false, request_tokens: 0, response_tokens: 0, http_status: 400, status: 'error', attempts: [{ model: 'm', provider: 'p', upstreamModel: 'm', status: 400, errorCode: null, latencyMs: 5 }] });
    expect(isBilled(upstream400)).toBe(false);
    expect(toLogRecord(upstream400)).toMatchObject({ billed: false, input_cost: '0', output_cost: '0' });
    expect(isBilled(call({ served: false, request_tokens: 0, response_tokens: 0, http_status: 429, attempts: [] }))).toBe(false);
    expect(isBilled(call({ served: false, request_tokens: 0, response_tokens: 0, http_status: 502 }))).toBe(false);
    const hit = toLogRecord(call({ cache_hit: true }));
    expect(hit).toMatchObject({ billed: false, input_cost: '0', request_tokens: 1000, response_tokens: 500 });
  });

  it('bills a partial answer (client gone, stream cut) for its estimated tokens', () => {
    const partial = call({ aborted: true, status: 'error', tokens_estimated: true, request_tokens: 20, response_tokens: 7 });
    const r = toLogRecord(partial);
    expect(r.billed).toBe(true);
    expect(r.input_cost).toBe('0.002');
    expect(r.output_cost).toBe('0.0021');
  });

  it('maps attempts and keeps the bodies as JSON text', () => {
    const r = toLogRecord(call({ request: '{"a":1}', attempts: [{ model: 'm', provider: 'p', upstreamModel: 'm', status: 0, errorCode: 'timeout', latencyMs: 3.2 }] }));
    expect(r.attempts).toEqual([{ model: 'm', provider: 'p', status: null, error_code: 'timeout', latency_ms: 3 }]);
    expect(r.request).toBe('{"a":1}');
  });
});

describe('token estimates', () => {
  it('counts words, long words by 4 characters, punctuation and CJK characters', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('one two three')).toBe(3);
    expect(estimateTokens('internationalization')).toBe(5);
    expect(estimateTokens('Hi, you!')).toBe(4);
    expect(estimateTokens('你好世界')).toBe(4);
  });

  it('adds message framing to prompts', () => {
    expect(estimatePromptTokens([{ role: 'user', content: 'one two' }])).toBe(3 + 4 + 2);
    expect(estimatePromptTokens([{ role: 'user', content: [{ type: 'text', text: 'a b c' }] }])).toBe(3 + 4 + 3);
    expect(estimatePromptTokens(undefined)).toBe(0);
  });
});
