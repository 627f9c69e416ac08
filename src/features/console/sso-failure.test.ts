import { describe, expect, it } from 'vitest';
import { callbackFailure, exchangeFailure } from './sso-failure.ts';

describe('callbackFailure', () => {
  it('blames the configuration for a scope or client the provider refuses', () => {
    expect(callbackFailure('invalid_scope', 'requested scope is not allowed')).toEqual({
      page: 'ssoMisconfigured',
      detail: 'invalid_scope: requested scope is not allowed',
      operatorFault: true,
    });
    expect(callbackFailure('unauthorized_client', null).page).toBe('ssoMisconfigured');
  });

  it('says the account was refused when the provider denied the person', () => {
    expect(callbackFailure('access_denied', 'not in the group')).toEqual({ page: 'ssoRefused', detail: 'not in the group', operatorFault: false });
  });
});

describe('exchangeFailure', () => {
  it('blames the configuration for an OAuth error of the token endpoint', () => {
    expect(exchangeFailure(Object.assign(new Error('server responded with an error'), { error: 'invalid_client', error_description: 'client authentication failed' }))).toEqual({
      page: 'ssoMisconfigured',
      detail: 'invalid_client: client authentication failed',
      operatorFault: true,
    });
  });

  it('says the provider is out of reach when the connection fails', () => {
    expect(exchangeFailure(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })).page).toBe('ssoUnreachable');
  });

  it('calls anything else an incomplete sign-in', () => {
    expect(exchangeFailure(new Error('unexpected ID token nonce')).page).toBe('ssoIncomplete');
  });
});
