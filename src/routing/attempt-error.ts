/**
 * The failure of one upstream attempt, classified for the fallback loop: may the same target be
 * retried, may the next target be tried, and what the client sees if it was the last.
 */
import { upstreamRateLimited, upstreamRefusal, upstreamUnavailable, type GatewayError } from '../kernel/errors.ts';
import type { UpstreamErrorInfo } from '../providers/types.ts';
import { carryNativeError } from '../providers/native.ts';

export class AttemptError extends Error {
  /** Which deadline ran out, for a timeout (`connect`, `first_token`, `idle`, `total`). */
  deadline?: string;

  constructor(
    message: string,
    readonly info: UpstreamErrorInfo,
    /** Worth retrying on the same target (transient). */
    readonly retrySame: boolean,
    /** Worth trying the next target. */
    readonly fallOver: boolean,
    /** Upstream's Retry-After, in ms. */
    readonly retryAfterMs?: number,
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'AttemptError';
  }

  /**
   * Says the upstream is unwell (5xx, 429, a timeout, a connection or protocol failure), so it
   * counts for the circuit breaker; a 4xx is about the request, never about the upstream's health.
   */
  get upstreamFault(): boolean {
    const { status } = this.info;
    return status === 0 || status === 429 || status >= 500;
  }
}

/** Classify an upstream HTTP error answer. */
export function httpAttemptError(info: UpstreamErrorInfo, retryAfterMs?: number): AttemptError {
  const { status } = info;
  if (status === 429 || status >= 500) return new AttemptError(info.message, info, true, true, retryAfterMs);
  // A wider context window elsewhere may fit: move on, but the same model will refuse again.
  if (info.code === 'context_length_exceeded') return new AttemptError(info.message, info, false, true);
  // Bad credentials or an unknown model at this upstream: another target may work.
  if (status === 401 || status === 403 || status === 404) return new AttemptError(info.message, info, false, true);
  return new AttemptError(info.message, info, false, false);
}

/**
 * A failure without an HTTP answer. A connection refused or reset before any byte is worth one
 * quick retry on the same target; a timeout is not: the deadline was spent already, so the next
 * target is tried at once rather than waiting out the same deadline again.
 */
export function networkAttemptError(error: unknown, timedOut: boolean, what = 'connect'): AttemptError {
  const detail = timedOut ? `The upstream did not answer in time (${what}).` : 'The upstream could not be reached.';
  const info: UpstreamErrorInfo = {
    status: 0,
    message: detail,
    type: 'upstream_error',
    code: timedOut ? 'upstream_timeout' : 'upstream_unavailable',
    param: null,
  };
  const attempt = new AttemptError(detail, info, !timedOut, true, undefined, timedOut);
  attempt.cause = error;
  if (timedOut) attempt.deadline = what;
  return attempt;
}

/**
 * What the client sees when the last attempt failed this way (never the upstream's key). A client
 * of the upstream's own wire format also gets its error answer as it came (src/providers/native.ts).
 */
export function toClientError(error: AttemptError): GatewayError {
  return carryNativeError(error, clientError(error));
}

function clientError(error: AttemptError): GatewayError {
  const { info } = error;
  if (info.status === 429) {
    const seconds = error.retryAfterMs ? Math.ceil(error.retryAfterMs / 1000) : 1;
    return upstreamRateLimited(info.message, info.code, seconds);
  }
  if (info.status >= 400 && info.status < 500 && info.status !== 401 && info.status !== 403) {
    return upstreamRefusal(info.status, info.type, info.message, info.code, info.param);
  }
  const reason = info.status ? `upstream answered HTTP ${info.status}` : info.message;
  return upstreamUnavailable(`No upstream could serve the request (${reason}).`, error);
}

/** Parse a Retry-After header (seconds or HTTP date) into ms. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
