/** Record each upstream attempt, or target passed over, in the request's outcome (the log lists them all). */
import type { GatewayContext } from '../pipeline/context.ts';
import type { Attempt } from '../pipeline/outcome.ts';
import type { Target } from '../providers/types.ts';

export function recordAttempt(
  ctx: GatewayContext,
  target: Target,
  latencyMs: number,
  status: number,
  errorCode: string | null,
  kind: NonNullable<Attempt['kind']>,
  /** The signal the call was sent with (its span); none for the break of the stream being relayed. */
  signal?: object,
): void {
  const attempt: Attempt = {
    model: target.requestedAs,
    provider: target.provider.id,
    upstreamModel: target.upstreamModel,
    status,
    errorCode,
    latencyMs,
    kind,
  };
  ctx.outcome.attempts.push(attempt);
  ctx.trace?.endAttempt(attempt, signal);
  if (status === 200) ctx.outcome.served = { model: target.requestedAs, provider: target.provider.id, upstreamModel: target.upstreamModel };
}

/**
 * Record a target the gateway passed over without calling it (its circuit open, or a request its
 * wire format cannot carry): the log lists it, but it is no upstream failure (metrics) and no
 * upstream call (traces: an event on the request's span).
 */
export function recordPassedOver(ctx: GatewayContext, target: Target, code: string | null, kind: NonNullable<Attempt['kind']>): void {
  const attempt: Attempt = {
    model: target.requestedAs,
    provider: target.provider.id,
    upstreamModel: target.upstreamModel,
    status: 0,
    errorCode: code,
    latencyMs: 0,
    kind,
    refused: true,
  };
  ctx.outcome.attempts.push(attempt);
  ctx.trace?.passOver(attempt);
}

/**
 * Record a call the gateway cancelled because another target sent its first token first (a
 * hedged race): listed in the log with code `hedge_cancelled`, but neither an upstream failure
 * (metrics) nor a breaker count.
 */
export function recordCancelled(ctx: GatewayContext, target: Target, latencyMs: number, kind: NonNullable<Attempt['kind']>, signal: object): void {
  const attempt: Attempt = {
    model: target.requestedAs,
    provider: target.provider.id,
    upstreamModel: target.upstreamModel,
    status: 0,
    errorCode: HEDGE_CANCELLED,
    latencyMs,
    kind,
    cancelled: true,
  };
  ctx.outcome.attempts.push(attempt);
  ctx.trace?.endAttempt(attempt, signal);
}

export const HEDGE_CANCELLED = 'hedge_cancelled';
