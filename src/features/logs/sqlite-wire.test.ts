import { describe, expect, it } from 'vitest';
import { makeRecord } from './test-records.ts';
import { packRecords, SCALARS, unpackRecords } from './sqlite-wire.ts';
import type { LogAttempt, LogRecord } from './types.ts';

/** What the worker gets: the packed batch through the structured clone postMessage uses. */
const roundTrip = (records: LogRecord[]) => unpackRecords(structuredClone(packRecords(records)));

/** A record with every field set, each to a value no other field has. */
function fullRecord(): Required<LogRecord> {
  return {
    id: 'req_0193a0b0c0d0e0f0a0b0c0d0e0f0a0b0', created_at: 1_732_000_000_123, api_key_id: 'key-1', api_key_name: 'Key one',
    account_id: 'acct-1', group_id: 'group-1', provider_id: 'prov-1', model: 'model-1', endpoint: 'responses',
    request_tokens: 11, response_tokens: 22, cached_tokens: 3, reasoning_tokens: 4, status: 'error', http_status: 502,
    error_code: 'upstream_unavailable', error_message: 'no answer', latency_ms: 123, ttft_ms: 45, ip: '10.0.0.1',
    user_agent: 'agent/1.0', stream: true, cache_hit: false, cache_similarity: 0.93, trace_id: '0af7651916cd43dd8448eb211c80319c',
    input_cost: '0.000000000001', output_cost: '123456789012345678.123456789012', currency: 'USD',
    request: '{"model":"model-1"}', response: '{"id":"x"}', billed: true, sanitized: true,
    guardrails: [{ guardrail: 'pii', check: 'pii', stage: 'input', action: 'redact', result: 'redacted', categories: ['email'] }],
    attempts: [
      { model: 'model-1', provider: 'prov-1', status: 502, error_code: 'upstream_unavailable', latency_ms: 60, kind: 'first' },
      { model: 'model-2', provider: null, status: null, error_code: null, latency_ms: 0 },
    ],
  };
}

describe('the SQLite log worker wire format', () => {
  it('lists every field of a log record but the attempts, once', () => {
    const fields = Object.keys(fullRecord()).filter((k) => k !== 'attempts');
    expect([...SCALARS].sort()).toEqual(fields.sort());
  });

  // toEqual: an optional field left out arrives as undefined, which no store tells apart.
  it('gives back every field of every record, in order', () => {
    const records = [fullRecord(), makeRecord({ id: 'req_b' }), { ...fullRecord(), id: 'req_c', attempts: [] }];
    expect(roundTrip(records)).toEqual(records);
  });

  it('keeps NUL and lone surrogates in every text for the store to sanitize', () => {
    const odd = 'a\u0000b\ud800c\udfffd\ud83d';
    const record = makeRecord({
      id: `req_${odd}`, api_key_name: odd, model: odd, user_agent: odd, error_message: odd, ip: odd,
      request: `{"content":"${odd}"}`, response: odd, input_cost: odd,
      attempts: [{ model: odd, provider: odd, status: 200, error_code: odd, latency_ms: 1 }],
    });
    const [back] = roundTrip([record]);
    expect(back).toEqual(record);
    expect(back!.user_agent).toBe(odd);
  });

  it('tells null from undefined in every field that may hold either', () => {
    const nulls = makeRecord({ id: 'req_n', group_id: null, provider_id: null, error_code: null, ttft_ms: null, request: null, response: null, cache_similarity: null, trace_id: null, guardrails: null });
    const undefs = { ...makeRecord({ id: 'req_u' }), cache_similarity: undefined, trace_id: undefined, guardrails: undefined, sanitized: undefined, error_code: undefined } as unknown as LogRecord;
    const [n, u] = roundTrip([nulls, undefs]);
    for (const key of ['group_id', 'provider_id', 'error_code', 'ttft_ms', 'request', 'response', 'cache_similarity', 'trace_id', 'guardrails'] as const) {
      expect(n![key], key).toBeNull();
    }
    for (const key of ['cache_similarity', 'trace_id', 'guardrails', 'sanitized', 'error_code'] as const) expect(u![key], key).toBeUndefined();
  });

  it('passes odd values as they are: costs as strings, NaN, -0, a float count, a string count', () => {
    const record = { ...makeRecord({ id: 'req_o', input_cost: '1e-20000', output_cost: '99999999999999999999.999999999999' }), latency_ms: NaN, ttft_ms: -0, request_tokens: 1.5, response_tokens: '7' } as unknown as LogRecord;
    const [back] = roundTrip([record]);
    expect(back).toEqual(record);
    expect(back!.input_cost).toBe('1e-20000');
    expect(Object.is(back!.ttft_ms, -0)).toBe(true);
    expect(back!.response_tokens).toBe('7');
  });

  it('keeps attempts the store would write differently as they are: other key order, extra keys, kind left undefined, not an array', () => {
    const shapes: unknown[] = [
      [{ provider: 'p', model: 'm', status: 200, error_code: null, latency_ms: 1 }],
      [{ model: 'm', provider: 'p', status: 200, error_code: null, latency_ms: 1, kind: 'first', extra: 1 }],
      [{ model: 'm', provider: 'p', status: 200, error_code: null, latency_ms: 1, kind: undefined }],
      [{ model: 'm', provider: 'p', status: 200, error_code: null, latency_ms: 1 }, null],
      [{ model: 'm', provider: 'p', status: 200, error_code: null }],
      'not attempts',
      undefined,
    ];
    const records = shapes.map((attempts, i) => ({ ...makeRecord({ id: `req_${i}` }), attempts: attempts as LogAttempt[] }));
    const back = roundTrip(records);
    expect(back).toEqual(records);
    back.forEach((r, i) => expect(JSON.stringify(r.attempts)).toBe(JSON.stringify(records[i]!.attempts)));
  });

  it('packs an empty batch to nothing', () => {
    expect(roundTrip([])).toEqual([]);
  });
});
