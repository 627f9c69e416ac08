import { describe, expect, it } from 'vitest';
import { internalError, modelNotPermitted, rateLimited, streamStalled, upstreamUnavailable } from '../../kernel/errors.ts';
import { googleError, googleErrorResponse } from './errors.ts';

describe('googleError', () => {
  it.each([
    [modelNotPermitted('x'), 403, 'PERMISSION_DENIED'],
    [rateLimited(3), 429, 'RESOURCE_EXHAUSTED'],
    [internalError(new Error('hidden')), 500, 'INTERNAL'],
    [upstreamUnavailable(), 503, 'UNAVAILABLE'],
    [streamStalled('slow'), 504, 'DEADLINE_EXCEEDED'],
  ])('renders %s as its HTTP status and rpc name', (error, code, status) => {
    expect(googleError(error).error).toMatchObject({ code, status, message: error.message });
  });

  it('carries the gateway code, the param and the wait in details, and keeps Retry-After', async () => {
    const response = googleErrorResponse(rateLimited(3), [['x-request-id', 'req_1']]);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(response.headers.get('x-request-id')).toBe('req_1');
    const body = await response.json();
    expect(body.error.details).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'rate_limit_exceeded', domain: 'gateway' },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' },
    ]);
    expect(googleError(modelNotPermitted('x')).error.details![0]).toMatchObject({ metadata: { param: 'model' } });
  });
});
