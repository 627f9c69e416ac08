/**
 * How a finished exchange ended, in four words, for the metrics' `outcome` label and the request
 * span's status. The HTTP status alone cannot say it: a stream's 200 has left before it breaks.
 */
import type { Outcome } from './outcome.ts';

/**
 * - `ok`: answered in full (a stream to its finish).
 * - `client_error`: refused for the request's sake (4xx: bad body, key, limit...).
 * - `server_error`: the gateway or an upstream failed: a 5xx, or a stream that broke after its 200.
 * - `aborted`: the client left before the end.
 */
export type RequestOutcome = 'ok' | 'client_error' | 'server_error' | 'aborted';

export function requestOutcome(outcome: Outcome): RequestOutcome {
  if (outcome.status >= 500) return 'server_error';
  if (outcome.aborted) return 'aborted';
  if (outcome.status >= 400) return 'client_error';
  // An error after a 2xx can only be the stream's last event: the client cannot cause one.
  return outcome.error ? 'server_error' : 'ok';
}
