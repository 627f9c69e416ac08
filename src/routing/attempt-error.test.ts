import { describe, expect, it } from 'vitest';
import { httpAttemptError, networkAttemptError, parseRetryAfter, toClientError } from './attempt-error.ts';

const info = (status: number, code: string | null = null) => ({ status, message: `upstream ${status}`, type: 't', code, param: null });

describe('attempt classification', () => {
  it('retries and falls over on 429 and 5xx', () => {
    for (const status of [429, 500, 502, 503, 529]) expect(httpAttemptError(info(status))).toMatchObject({ retrySame: true, fallOver: true });
  });

  it('never retries a 400, but context_length_exceeded falls over', () => {
    expect(httpAttemptError(info(400))).toMatchObject({ retrySame: false, fallOver: false });
    expect(httpAttemptError(info(400, 'context_length_exceeded'))).toMatchObject({ retrySame: false, fallOver: true });
  });

  it('falls over without retrying on upstream auth and not-found', () => {
    for (const status of [401, 403, 404]) expect(httpAttemptError(info(status))).toMatchObject({ retrySame: false, fallOver: true });
  });

  it('falls over at once after a timeout, but retries a connection failure on the same target', () => {
    expect(networkAttemptError(new Error('t'), true, 'first_token')).toMatchObject({ retrySame: false, fallOver: true, upstreamFault: true });
    expect(networkAttemptError(new Error('ECONNRESET'), false)).toMatchObject({ retrySame: true, fallOver: true, upstreamFault: true });
  });

  it('counts 5xx, 429 and network failures against the upstream, never a 4xx caused by the request', () => {
    for (const status of [429, 500, 502, 503]) expect(httpAttemptError(info(status)).upstreamFault).toBe(true);
    for (const status of [400, 401, 403, 404, 413, 422]) expect(httpAttemptError(info(status)).upstreamFault).toBe(false);
    expect(httpAttemptError(info(400, 'context_length_exceeded')).upstreamFault).toBe(false);
  });

  it('maps the last failure to what the client sees, never leaking upstream details beyond the message', () => {
    expect(toClientError(httpAttemptError(info(400, 'bad')))).toMatchObject({ status: 400, code: 'bad' });
    const limited = toClientError(httpAttemptError(info(429), 7000));
    expect(limited).toMatchObject({ status: 429, headers: { 'retry-after': '7' } });
    expect(toClientError(httpAttemptError(info(401)))).toMatchObject({ status: 503, code: 'upstream_unavailable' });
    expect(toClientError(networkAttemptError(new Error('ECONNREFUSED'), false))).toMatchObject({ status: 503, code: 'upstream_unavailable' });
    expect(toClientError(networkAttemptError(new Error('t'), true))).toMatchObject({ status: 503 });
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString(), Date.now())).toBeGreaterThan(3000);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
