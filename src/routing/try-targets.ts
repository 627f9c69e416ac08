/**
 * The retry/fallback loop: try targets in order, each retried on transient failures with
 * backoff (honouring Retry-After, or falling over at once when it is too long), skipping
 * deployments whose circuit is open, and returning the first success.
 */
import type { GatewayContext } from '../pipeline/context.ts';
import { GatewayError, upstreamUnavailable } from '../pipeline/errors.ts';
import type { Attempt } from '../pipeline/outcome.ts';
import type { ChatRequest } from '../providers/openai-types.ts';
import type { Target } from '../providers/types.ts';
import type { Runtime } from '../runtime.ts';
import { AttemptError, toClientError } from './attempt-error.ts';
import { recordAttempt } from './attempts.ts';
import { backoffDelay, sleep } from './backoff.ts';
import { createBreaker, deploymentOf, type Breaker } from './breaker.ts';
import type { AttemptInput } from './call.ts';
import { timeoutsFor } from './timeouts.ts';

export interface Success<T> {
  value: T;
  target: Target;
  /** Index of the target in the list tried. */
  index: number;
}

export interface TryOptions {
  targets: Target[];
  request: ChatRequest;
  /** Kind recorded for the first attempt of each target (default: first, then fallback). */
  kind?: Attempt['kind'];
}

export function breakerFor(ctx: GatewayContext, now: () => number): Breaker {
  return createBreaker(ctx.runtime.store, ctx.snapshot.config.routing.breaker, now);
}

export function inputFor(runtime: Runtime, ctx: GatewayContext, target: Target, request: ChatRequest): AttemptInput {
  return {
    request,
    target,
    adapter: runtime.adapters.get(target.provider),
    transport: runtime.transport,
    timeouts: timeoutsFor(ctx.snapshot.config, target),
    signal: ctx.signal,
    traceHeaders: ctx.trace?.beginAttempt(target),
  };
}

/** Run `call` against each target with retries; the first success, or the client's error. */
export async function tryTargets<T>(
  ctx: GatewayContext,
  call: (input: AttemptInput) => Promise<T>,
  options: TryOptions,
  now: () => number,
): Promise<Success<T>> {
  const { retries, backoff_ms, backoff_max_ms, max_retry_after_ms } = ctx.snapshot.config.routing;
  const breaker = breakerFor(ctx, now);
  let last: AttemptError | undefined;
  let openFor: number | undefined;
  for (const [index, target] of options.targets.entries()) {
    const deployment = deploymentOf(target.provider.id, target.upstreamModel);
    for (let retry = 0; retry <= retries; retry++) {
      const kind = retry > 0 ? 'retry' : (options.kind ?? (index > 0 ? 'fallback' : 'first'));
      const verdict = await breaker.check(deployment);
      if (!verdict.allowed) {
        // Skipped without a call: recorded so the log shows why this deployment was passed over.
        recordAttempt(ctx, target, 0, 0, 'circuit_open', kind);
        openFor = Math.min(openFor ?? Infinity, verdict.retryInMs);
        break;
      }
      const started = now();
      try {
        const value = await call(inputFor(ctx.runtime, ctx, target, options.request));
        recordAttempt(ctx, target, now() - started, 200, null, kind);
        await breaker.success(deployment, verdict.state);
        return { value, target, index };
      } catch (error) {
        if (!(error instanceof AttemptError)) throw error; // client gone or a bug: not an upstream verdict
        last = error;
        recordAttempt(ctx, target, now() - started, error.info.status, error.info.code, kind);
        // Only transient failures say anything about the deployment's health (a 400 does not).
        if (error.retrySame) await breaker.failure(deployment, verdict.state);
        if (!error.fallOver) throw toClientError(error);
        if (!error.retrySame || retry === retries) break;
        const wait = error.retryAfterMs ?? backoffDelay(retry, backoff_ms, backoff_max_ms);
        if (wait > max_retry_after_ms) break; // a long Retry-After: fall over at once
        await sleep(wait, ctx.signal);
      }
    }
  }
  if (last) throw toClientError(last);
  if (openFor !== undefined) {
    const seconds = String(Math.max(1, Math.ceil(openFor / 1000)));
    throw new GatewayError(503, 'upstream_error', 'Every upstream for this model is cooling down after repeated failures.', {
      code: 'upstream_unavailable',
      headers: { 'retry-after': seconds },
      retryable: true,
    });
  }
  throw upstreamUnavailable();
}
