/**
 * Hedged first tokens: when a target's first token (a JSON answer: its whole body) has not come by
 * its hedge point (hedge-point.ts), the next target that may be called is started beside it. The
 * first of the two to send a token wins; the other is cancelled upstream at once (its connection
 * aborted), recorded in the log as `hedge_cancelled`, never counted as an upstream failure nor by
 * the breaker. If one of them fails instead, the other goes on alone. The client gets one answer
 * and is billed for it only; what the loser cost upstream is kept in `outcome.hedge` (metrics).
 *
 * Cost when nothing is slow: one timer per target called, cleared at its first token.
 */
import type { ClientSignal } from '../http/client-signal.ts';
import { estimatePromptTokens } from '../kernel/estimate-tokens.ts';
import type { GatewayContext } from '../pipeline/context.ts';
import { recordCancelled } from './attempts.ts';
import { deploymentOf } from './breaker.ts';
import { latencyBook } from './latency.ts';
import type { Leg, LegResult, Success } from './leg-types.ts';

/** Why a hedged call was aborted (one frozen reason: no Error and stack per cancel). */
const HEDGE_LOST = Object.freeze(Object.assign(new Error('another target answered first'), { name: 'AbortError' }));

/** The `calling` of a call whose wait is not timed (the hedge itself): one shared no-op, not one per call. */
const NOT_TIMED = () => {};

/**
 * The signal of one call in a hedged race: the client's abort, or the gateway's cancel when the
 * race went to the other call (`cancelled` tells them apart). The call reports its first token
 * through it.
 */
export class Cancel implements ClientSignal {
  aborted = false;
  reason: unknown = HEDGE_LOST;
  /** The race was decided against this call (not the client leaving). */
  cancelled = false;
  private listeners: Array<() => void> = [];
  private readonly onClientAbort = () => this.fire(this.client.reason);

  constructor(
    private readonly client: ClientSignal,
    /** Told when the call's first token has come. */
    readonly firstToken: () => void,
    /**
     * Told when a call to the target starts (true) and ends (false): the hedge point counts the
     * wait for a first token, not a pause before a retry (a short Retry-After is waited out).
     */
    readonly calling: (inFlight: boolean) => void = NOT_TIMED,
  ) {
    if (client.aborted) this.fire(client.reason);
    else client.addEventListener('abort', this.onClientAbort, { once: true });
  }

  cancel(): void {
    if (this.aborted) return;
    this.cancelled = true;
    this.fire(HEDGE_LOST);
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners.indexOf(listener);
    if (index !== -1) this.listeners.splice(index, 1);
  }

  dispose(): void {
    this.client.removeEventListener('abort', this.onClientAbort);
  }

  private fire(reason: unknown) {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  }
}

export interface RaceInput<T> {
  primary: Leg;
  /** The hedge point of the primary, ms from its start. */
  afterMs: number;
  stream: boolean;
  run(leg: Leg, cancel: Cancel): Promise<LegResult<T>>;
  /** The next target that may be called (the breaker asked), recorded with this kind. */
  nextLeg(kind: 'hedged'): Promise<Leg | null>;
  now(): number;
  discard(value: T): number | undefined;
}

export interface Raced<T> {
  success?: Success<T>;
  /** How the calls ended when none succeeded. */
  results: LegResult<T>[];
  /** A hedge was started (the request gets no other). */
  hedged: boolean;
  /** A target taken for a hedge that was not started after all (the first token came meanwhile): to be called next. */
  unused?: Leg;
}

interface Entry<T> {
  leg: Leg;
  started: number;
  cancel: Cancel;
  promise: Promise<LegResult<T>>;
  settled: boolean;
  /** What cancelling it cost upstream, as counted so far. */
  cost: number;
}

/** Call `primary`; past its hedge point without a first token, start the next target beside it. */
export async function raceWithHedge<T>(ctx: GatewayContext, input: RaceInput<T>): Promise<Raced<T>> {
  const { primary, now } = input;
  const entries: Entry<T>[] = [];
  let decided: Entry<T> | null = null;

  const lose = (entry: Entry<T>) => {
    if (entry.settled || entry.cancel.aborted) return;
    entry.cancel.cancel();
    const elapsed = now() - entry.started;
    const { target, kind } = entry.leg;
    recordCancelled(ctx, target, elapsed, kind, entry.cancel);
    // Its time to first token was at least this: a deployment that keeps losing must look slow.
    latencyBook(ctx.runtime).of(deploymentOf(target.provider.id, target.upstreamModel)).ring(input.stream).push(elapsed);
    // The upstream has read the prompt; what it generated before the abort is not known.
    entry.cost = estimatePromptTokens(ctx.body.messages);
    if (ctx.outcome.hedge) ctx.outcome.hedge.tokens += entry.cost;
  };
  const decide = (entry: Entry<T>) => {
    if (decided) return;
    decided = entry;
    for (const other of entries) if (other !== entry) lose(other);
  };
  let timer: NodeJS.Timeout | undefined;
  let fireHedge!: (value: 'hedge') => void;
  const hedgePoint = new Promise<'hedge'>((resolve) => (fireHedge = resolve));
  let pointPassed = false;
  // One timer, armed while the primary's call waits for its first token.
  const arm = (inFlight: boolean) => {
    clearTimeout(timer);
    if (inFlight && !pointPassed) {
      timer = setTimeout(() => {
        pointPassed = true;
        fireHedge('hedge');
      }, input.afterMs);
    }
  };
  const start = (leg: Leg, calling?: (inFlight: boolean) => void): Entry<T> => {
    const entry = { leg, started: now(), settled: false, cost: 0 } as Entry<T>;
    entry.cancel = new Cancel(ctx.signal, () => decide(entry), calling);
    entry.promise = input.run(leg, entry.cancel).then(
      (result) => settle(entry, result),
      (error: unknown) => {
        settle(entry, null);
        throw error;
      },
    );
    entries.push(entry);
    return entry;
  };
  const settle = (entry: Entry<T>, result: LegResult<T> | null) => {
    entry.settled = true;
    entry.cancel.dispose();
    if (result && 'cancelled' in result && result.value !== undefined) {
      // Both answered: the loser's answer is dropped, and its real cost replaces the estimate.
      const tokens = input.discard(result.value);
      if (tokens !== undefined && ctx.outcome.hedge) ctx.outcome.hedge.tokens += tokens - entry.cost;
    }
    return result!;
  };

  const first = start(primary, arm);
  let early: LegResult<T> | 'hedge';
  try {
    early = await Promise.race([first.promise, hedgePoint]);
  } finally {
    clearTimeout(timer);
  }
  if (early !== 'hedge') return finish([early], false);
  // The first token came (a stream opened, a JSON answer read whole) or the client left: nothing to hedge.
  if (decided || ctx.signal.aborted) return finish([await first.promise], false);
  const leg = await input.nextLeg('hedged');
  if (!leg) return finish([await first.promise], false);
  if (decided || first.settled) return { ...finish([await first.promise], false), unused: leg };

  ctx.outcome.hedge = { won: false, tokens: 0 };
  const second = start(leg);
  const winner = await firstValue([first, second], lose);
  if (winner) ctx.outcome.hedge.won = winner.entry === second;
  return winner ? finish([winner.result], true, winner.entry.leg) : { results: await resultsOf([first, second]), hedged: true };

  function finish(results: LegResult<T>[], hedged: boolean, by = primary): Raced<T> {
    for (const result of results) {
      if ('value' in result && !('cancelled' in result)) {
        return { success: { value: result.value, target: by.target, index: by.index, kind: result.kind }, results, hedged };
      }
    }
    return { results, hedged };
  }
}

/** The first call to answer, or null when both failed; a throw (the client gone, a 400) cancels the other. */
function firstValue<T>(entries: Entry<T>[], lose: (entry: Entry<T>) => void): Promise<{ entry: Entry<T>; result: LegResult<T> } | null> {
  return new Promise((resolve, reject) => {
    let pending = entries.length;
    let done = false;
    for (const entry of entries) {
      entry.promise.then(
        (result) => {
          if (done) return;
          if ('value' in result && !('cancelled' in result)) {
            done = true;
            for (const other of entries) if (other !== entry) lose(other);
            return resolve({ entry, result });
          }
          if (--pending === 0) resolve(null);
        },
        (error: unknown) => {
          if (done) return;
          done = true;
          for (const other of entries) if (other !== entry) lose(other);
          reject(error);
        },
      );
    }
  });
}

async function resultsOf<T>(entries: Entry<T>[]): Promise<LegResult<T>[]> {
  return Promise.all(entries.map((entry) => entry.promise));
}
