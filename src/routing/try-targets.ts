/**
 * The retry/fallback loop: try targets in order, retrying the same target only for failures a
 * quick retry can fix (a connection refused or reset before any byte, 429/5xx after a short
 * backoff or Retry-After; never a timeout, whose deadline was spent already), passing over
 * deployments whose circuit is open, and returning the first success. When every target is open
 * (or the others failed too), the one whose open period ends first is called anyway as its
 * probe: the gateway never refuses a call on the breaker's word alone.
 */
import type { GatewayContext } from '../pipeline/context.ts';
import { GatewayError, upstreamUnavailable } from '../kernel/errors.ts';
import type { Attempt } from '../pipeline/outcome.ts';
import type { ChatRequest } from '../providers/openai-types.ts';
import type { Target } from '../providers/types.ts';
import type { Runtime } from '../pipeline/runtime.ts';
import type { CircuitCheck } from '../store/types.ts';
import { AttemptError, toClientError } from './attempt-error.ts';
import { recordAttempt, recordPassedOver } from './attempts.ts';
import { backoffDelay, sleep } from './backoff.ts';
import { createBreaker, deploymentOf, type Breaker } from './breaker.ts';
import { SHUTTING_DOWN, type AttemptInput } from './call.ts';
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

type Call<T> = (input: AttemptInput) => Promise<T>;

export function breakerFor(ctx: GatewayContext): Breaker {
  return createBreaker(ctx.runtime.store, ctx.snapshot.config.routing.breaker);
}

export function inputFor(runtime: Runtime, ctx: GatewayContext, target: Target, request: ChatRequest): AttemptInput {
  return {
    request,
    target,
    adapter: runtime.adapters.get(target.provider),
    transport: runtime.transport,
    timeouts: timeoutsFor(ctx.snapshot.config, target),
    signal: ctx.signal,
    trace: ctx.trace,
  };
}

/**
 * Run `call` against each target with retries; the first success, or the client's error. A
 * target whose wire format cannot carry the request (the adapter's own 400, thrown before any
 * upstream call) is passed over for the next one, which may support the parameter; when no
 * target could even be asked, the client gets that 400. An upstream's failure outranks such a
 * refusal: a target that could serve the request was tried and failed.
 */
export async function tryTargets<T>(ctx: GatewayContext, call: Call<T>, options: TryOptions, now: () => number): Promise<Success<T>> {
  const breaker = breakerFor(ctx);
  const kindOf = (index: number) => options.kind ?? (index > 0 ? 'fallback' : 'first');
  let last: AttemptError | undefined;
  let refusal: GatewayError | undefined;
  let earliestOpen: { target: Target; index: number; retryInMs: number } | undefined;
  for (const [index, target] of options.targets.entries()) {
    const check = await breaker.check(deploymentOf(target.provider.id, target.upstreamModel));
    if (check.verdict === 'open') {
      // Passed over without a call: recorded so the log shows why.
      recordPassedOver(ctx, target, 'circuit_open', kindOf(index));
      if (!earliestOpen || check.retryInMs < earliestOpen.retryInMs) earliestOpen = { target, index, retryInMs: check.retryInMs };
      continue;
    }
    const result = await callTarget(ctx, call, options.request, target, kindOf(index), check, breaker, now);
    if ('value' in result) return { value: result.value, target, index };
    if ('refused' in result) refusal = result.refused;
    else last = result.error;
  }
  if (earliestOpen) {
    const { target, index } = earliestOpen;
    const result = await callTarget(ctx, call, options.request, target, kindOf(index), null, breaker, now);
    if ('value' in result) return { value: result.value, target, index };
    if ('refused' in result) refusal = result.refused;
    else last = result.error;
  }
  if (last) throw toClientError(last);
  throw refusal ?? upstreamUnavailable();
}

/**
 * One target, with its quick retries. Resolves with the value, with the error when the next
 * target may be tried, or with the adapter's refusal to translate the request for this target;
 * throws the client's error when no other target may be tried (a 400 caused by the request).
 */
async function callTarget<T>(
  ctx: GatewayContext,
  call: Call<T>,
  request: ChatRequest,
  target: Target,
  kind: NonNullable<Attempt['kind']>,
  check: CircuitCheck | null,
  breaker: Breaker,
  now: () => number,
): Promise<{ value: T } | { error: AttemptError } | { refused: GatewayError }> {
  const { retries, backoff_ms, backoff_max_ms, max_retry_after_ms } = ctx.snapshot.config.routing;
  const deployment = deploymentOf(target.provider.id, target.upstreamModel);
  let before = check;
  for (let retry = 0; ; retry++) {
    const started = now();
    try {
      const value = await call(inputFor(ctx.runtime, ctx, target, request));
      recordAttempt(ctx, target, now() - started, 200, null, retry > 0 ? 'retry' : kind);
      await breaker.success(deployment, before);
      return { value };
    } catch (error) {
      if (GatewayError.is(error)) {
        // The adapter refused before any call (a parameter this wire format cannot carry): not an
        // upstream fault, so no retry and no breaker count; the log shows the target passed over.
        // The one such error that follows a call made is the drain deadline's.
        if (error.code === SHUTTING_DOWN) recordAttempt(ctx, target, 0, 0, error.code, kind);
        else recordPassedOver(ctx, target, error.code, kind);
        return { refused: error };
      }
      if (!(error instanceof AttemptError)) throw error; // client gone or a bug: not an upstream verdict
      recordAttempt(ctx, target, now() - started, error.info.status, error.info.code, retry > 0 ? 'retry' : kind);
      if (error.upstreamFault) {
        await breaker.failure(deployment);
        before = null; // a later success must clear the count just made
      }
      if (!error.fallOver) throw toClientError(error);
      if (!error.retrySame || retry >= retries) return { error };
      const wait = error.retryAfterMs ?? backoffDelay(retry, backoff_ms, backoff_max_ms);
      if (wait > max_retry_after_ms) return { error }; // a long Retry-After: fall over at once
      await sleep(wait, ctx.signal);
    }
  }
}
