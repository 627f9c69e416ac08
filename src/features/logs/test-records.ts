/**
 * Test helpers: a full `LogRecord` with overridable fields, and the fixed call set the
 * statistics tests compute by hand (times chosen around UTC and Asia/Shanghai day boundaries).
 */
import type { LogRecord } from './types.ts';

/** A successful, billed chat call with small numbers; override what the test needs. */
export function makeRecord(overrides: Partial<LogRecord> & { id: string }): LogRecord {
  return {
    created_at: Date.parse('2024-03-01T00:00:00Z'),
    api_key_id: 'k1',
    api_key_name: 'Key one',
    account_id: 'a1',
    group_id: null,
    provider_id: 'p1',
    model: 'm1',
    endpoint: 'chat',
    request_tokens: 1,
    response_tokens: 1,
    cached_tokens: 0,
    reasoning_tokens: 0,
    status: 'success',
    http_status: 200,
    error_code: null,
    error_message: null,
    latency_ms: 10,
    ttft_ms: null,
    ip: '127.0.0.1',
    user_agent: 'test',
    stream: false,
    cache_hit: false,
    attempts: [],
    input_cost: '0',
    output_cost: '0',
    currency: 'CNY',
    request: null,
    response: null,
    billed: true,
    ...overrides,
  };
}

const t = (iso: string) => Date.parse(iso);

/**
 * The statistics fixture. In UTC, A B E F fall on 03-01, C on 03-02, D on 03-31. In
 * Asia/Shanghai (+8), E is the last millisecond of 03-01, F the first instant of 03-02, B moves
 * to 03-02 and D to 04-01. E is an unbilled error whose cost must not count.
 */
export const statsRecords: LogRecord[] = [
  makeRecord({ id: 'log_A', created_at: t('2024-03-01T10:00:00Z'), api_key_id: 'k1', account_id: 'a1', model: 'm1',
    request_tokens: 100, response_tokens: 50, latency_ms: 200, input_cost: '0.1', output_cost: '0.2' }),
  makeRecord({ id: 'log_B', created_at: t('2024-03-01T17:00:00Z'), api_key_id: 'k2', api_key_name: 'Key two',
    account_id: 'a1', model: 'm2', request_tokens: 10, response_tokens: 5, latency_ms: 100, input_cost: '0.01',
    output_cost: '0.02' }),
  makeRecord({ id: 'log_C', created_at: t('2024-03-02T03:00:00Z'), api_key_id: 'k1', account_id: 'a1', model: 'm1',
    request_tokens: 1000, response_tokens: 500, latency_ms: 300, input_cost: '1', output_cost: '2' }),
  makeRecord({ id: 'log_D', created_at: t('2024-03-31T20:00:00Z'), api_key_id: 'k3', api_key_name: 'Key three',
    account_id: 'a2', model: 'm2', request_tokens: 7, response_tokens: 3, latency_ms: 50, input_cost: '0.3',
    output_cost: '0.4' }),
  makeRecord({ id: 'log_E', created_at: t('2024-03-01T15:59:59.999Z'), api_key_id: 'k1', account_id: 'a1', model: 'm1',
    request_tokens: 1, response_tokens: 1, latency_ms: 10, status: 'error', http_status: 502,
    error_code: 'upstream_unavailable', error_message: 'bad gateway', input_cost: '5', output_cost: '5', billed: false }),
  makeRecord({ id: 'log_F', created_at: t('2024-03-01T16:00:00Z'), api_key_id: 'k2', api_key_name: 'Key two',
    account_id: 'a1', model: 'm1', request_tokens: 2, response_tokens: 2, latency_ms: 20, input_cost: '0.1',
    output_cost: '0.2' }),
];
