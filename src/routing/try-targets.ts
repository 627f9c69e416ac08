/**
 * The retry/fallback loop: try targets in order, retrying the same target only for failures a
 * quick retry can fix (a connection refused or reset before any byte, 429/5xx after a short
 * backoff or Retry-After; never a timeout, whose deadline was spent already), passing over
 * deployments whose circuit is open, and returning the first success. When every target is open
 * (or the others failed too), the one whose open period ends first is called anyway as its
 * probe: the gateway never refuses a call on the breaker's word alone. A probe is one call,
 * never retried on the same target.
 *
 * For chat calls (`latency` given) each first token is timed per deployment (latency.ts), the
 * first-token deadline follows those times (timeouts.ts), and a target whose first token is late
 * gets the next target started beside it, once per request (hedge.ts).
 */
import type { GatewayContext } from '../pipeline/context.ts';
import { GatewayError, upstreamUnavailable } from '../kernel/errors.ts';
import type { ClientSignal } from '../http/client-signal.ts';
import type { Attempt } from '../pipeline/outcome.ts';
import type { ChatRequest } from '../providers/openai-types.ts';
import type { Target } from '../providers/types.ts';
import type { Runtime } from '../pipeline/runtime.ts';
import type { Timeouts } from '../config/types.ts';
import { AttemptError, toClientError } from './attempt-error.ts';
import { recordAttempt, recordPassedOver } from './attempts.ts';
import { backoffDelay, sleep } from './backoff.ts';
import { createBreaker, deploymentOf, type Breaker } from './breaker.ts';
import { SHUTTING_DOWN, type AttemptInput } from './call.ts';
import { raceWithHedge, type Cancel } from './hedge.ts';
import type { Kind, Leg, LegResult, Success } from './leg-types.ts';
import { hedgePointMs } from './hedge-point.ts';
import { latencyBook } from './latency.ts';
import { timeoutsFor } from './timeouts.ts';

export type { Leg, LegResult, Success } from './leg-types.ts';

export interface TryOptions<T = unknown> {
  targets: Target[];
  request: ChatRequest;
  /** Kind recorded for the first attempt of each target (default: first, then fallback). */
  kind?: Attempt['kind'];
  /**
   * A chat call: learn from its first token (streamed or not) and hedge it. `discard` ends an
   * answer that lost the race but came anyway, and says what it cost in tokens if it knows.
   */
  latency?: { stream: boolean; discard(value: T): number | undefined };
}

type Call<T> = (input: AttemptInput) => Promise<T>;

export function breakerFor(ctx: GatewayContext): Breaker {
  return createBreaker(ctx.runtime.store, ctx.snapshot.config.routing.breaker);
}

export function inputFor(
  runtime: Runtime,
  ctx: GatewayContext,
  target: Target,
  request: ChatRequest,
  signal: ClientSignal = ctx.signal,
  timeouts: Timeouts = timeoutsFor(ctx.snapshot.config, target),
): AttemptInput {
  return {
    request,
    target,
    adapter: runtime.adapters.get(target.provider),
    transport: runtime.transport,
    timeouts,
    signal,
    trace: ctx.trace,
    // Declared here, set by callTarget for chat calls: one object shape for every attempt.
    onFirstToken: undefined,
  };
}

/**
 * Run `call` against each target with retries; the first success, or the client's error. A
 * target whose wire format cannot carry the request (the adapter's own 400, thrown before any
 * upstream call) is passed over for the next one, which may support the parameter; when no
 * target could even be asked, the client gets that 400. An upstream's failure outranks such a
 * refusal: a target that could serve the request was tried and failed.
 */
export async function tryTargets<T>(ctx: GatewayContext, call: Call<T>, options: TryOptions<T>, now: () => number): Promise<Success<T>> {
  const breaker = breakerFor(ctx);
  const { targets } = options;
  const kindOf = (index: number): Kind => options.kind ?? (index > 0 ? 'fallback' : 'first');
  let last: AttemptError | undefined;
  let refusal: GatewayError | undefined;
  let earliestOpen: { target: Target; index: number; retryInMs: number } | undefined;
  let cursor = 0;
  /** The next target whose circuit lets it be called (the open ones are passed over on the way). */
  const nextLeg = async (kind?: Kind): Promise<Leg | null> => {
    while (cursor < targets.length) {
      const index = cursor++;
      const target = targets[index]!;
      const check = await breaker.check(deploymentOf(target.provider.id, target.upstreamModel));
      if (check.verdict !== 'open') return { target, index, kind: kind ?? kindOf(index), check };
      // Passed over without a call: recorded so the log shows why.
      recordPassedOver(ctx, target, 'circuit_open', kind ?? kindOf(index));
      if (!earliestOpen || check.retryInMs < earliestOpen.retryInMs) earliestOpen = { target, index, retryInMs: check.retryInMs };
    }
    return null;
  };
  const note = (result: LegResult<T>) => {
    if ('refused' in result) refusal = result.refused;
    else if ('error' in result) last = result.error;
  };
  const run = (leg: Leg, cancel?: Cancel) => callTarget(ctx, call, options, leg, breaker, now, cancel);
  let mayHedge = options.latency !== undefined && !ctx.signal.aborted;
  let leg = await nextLeg();
  while (leg) {
    const hedgeAt = mayHedge && cursor < targets.length ? hedgeAtFor(ctx, leg.target, options.latency!.stream) : null;
    if (hedgeAt === null) {
      const result = await run(leg);
      if ('value' in result && !('cancelled' in result)) return { value: result.value, target: leg.target, index: leg.index, kind: result.kind };
      note(result);
      leg = await nextLeg();
      continue;
    }
    const raced = await raceWithHedge<T>(ctx, { primary: leg, afterMs: hedgeAt, stream: options.latency!.stream, run, nextLeg, now, discard: options.latency!.discard });
    if (raced.success) return raced.success;
    for (const result of raced.results) note(result);
    if (raced.hedged) mayHedge = false; // one hedge per request: its cost stays bounded
    leg = raced.unused ?? (await nextLeg());
  }
  if (earliestOpen) {
    const { target, index } = earliestOpen;
    const result = await run({ target, index, kind: kindOf(index), check: null });
    if ('value' in result && !('cancelled' in result)) return { value: result.value, target, index, kind: result.kind };
    note(result);
  }
  if (last) throw toClientError(last);
  throw refusal ?? upstreamUnavailable();
}

function hedgeAtFor(ctx: GatewayContext, target: Target, stream: boolean): number | null {
  const stats = latencyBook(ctx.runtime).peek(deploymentOf(target.provider.id, target.upstreamModel));
  return hedgePointMs(ctx.snapshot.config, target, stats, stream);
}

/**
 * One target, with its quick retries (none for a probe: a target whose circuit is half open, or
 * open and called anyway, gets one call). Resolves with the value, with the error when the next
 * target may be tried, with the adapter's refusal to translate the request for this target, or
 * with `cancelled` when a hedged race was decided against it; throws the client's error when no
 * other target may be tried (a 400 caused by the request).
 */
async function callTarget<T>(
  ctx: GatewayContext,
  call: Call<T>,
  options: TryOptions<T>,
  leg: Leg,
  breaker: Breaker,
  now: () => number,
  cancel?: Cancel,
): Promise<LegResult<T>> {
  const { target, kind } = leg;
  const { backoff_ms, backoff_max_ms, max_retry_after_ms } = ctx.snapshot.config.routing;
  const probe = leg.check === null || leg.check.verdict === 'probe';
  const retries = probe ? 0 : ctx.snapshot.config.routing.retries;
  const deployment = deploymentOf(target.provider.id, target.upstreamModel);
  const stream = options.latency?.stream;
  const stats = stream === undefined ? undefined : latencyBook(ctx.runtime).of(deployment);
  const signal = cancel ?? ctx.signal;
  let before = leg.check;
  for (let retry = 0; ; retry++) {
    const started = now();
    // The learned deadline for streams only: a JSON answer comes after its whole generation,
    // which a long answer may take far past the usual; its deadline stays the configured one (its
    // hedge point learns from the time to its whole answer: call.ts reports that as its first token).
    const learned = stats && stream ? timeoutsFor(ctx.snapshot.config, target, { stats, stream }) : undefined;
    const input = inputFor(ctx.runtime, ctx, target, options.request, signal, learned);
    let firstTokenMs = -1;
    if (stats) {
      input.onFirstToken = () => {
        firstTokenMs = now() - started;
        cancel?.firstToken();
      };
      stats.inFlight++;
    }
    cancel?.calling(true);
    try {
      const value = await call(input);
      // Decided against while its answer came: the race's winner is recorded, not this one.
      if (cancel?.cancelled) return { cancelled: true, value };
      if (stats && firstTokenMs >= 0) stats.ring(stream!).push(firstTokenMs);
      recordAttempt(ctx, target, now() - started, 200, null, retry > 0 ? 'retry' : kind, signal);
      await breaker.success(deployment, before);
      return { value, kind: retry > 0 ? 'retry' : kind };
    } catch (error) {
      if (cancel?.cancelled) return { cancelled: true }; // the race was decided: no verdict on this upstream
      if (GatewayError.is(error)) {
        // The adapter refused before any call (a parameter this wire format cannot carry): not an
        // upstream fault, so no retry and no breaker count; the log shows the target passed over.
        // The one such error that follows a call made is the drain deadline's.
        if (error.code === SHUTTING_DOWN) recordAttempt(ctx, target, 0, 0, error.code, kind, signal);
        else recordPassedOver(ctx, target, error.code, kind);
        return { refused: error };
      }
      if (!(error instanceof AttemptError)) throw error; // client gone or a bug: not an upstream verdict
      recordAttempt(ctx, target, now() - started, error.info.status, error.info.code, retry > 0 ? 'retry' : kind, signal);
      cancel?.calling(false);
      if (error.upstreamFault) {
        await breaker.failure(deployment);
        before = null; // a later success must clear the count just made
      }
      if (!error.fallOver) throw toClientError(error);
      if (!error.retrySame || retry >= retries) return { error };
      const wait = error.retryAfterMs ?? backoffDelay(retry, backoff_ms, backoff_max_ms);
      if (wait > max_retry_after_ms) return { error }; // a long Retry-After: fall over at once
      try {
        await sleep(wait, signal);
      } catch (aborted) {
        if (cancel?.cancelled) return { cancelled: true };
        throw aborted;
      }
    } finally {
      if (stats) stats.inFlight--;
    }
  }
}
