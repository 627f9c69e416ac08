/**
 * The committed part of a stream: relay the upstream's chunks as one chunk stream, and decide
 * how it ends.
 * - After the upstream's finish_reason the answer is complete: close as soon as its usage has
 *   come (or a short grace has passed), without waiting for an end marker that may never come.
 * - A break before that (an error, a stall, or a close without a finish) is never made to look
 *   finished: it ends with an error (the renderer turns it into the error event), unless a
 *   target can continue the answer (resume.ts: a fallback, else the same target), in which case
 *   the answer so far is sent there as a prefix and its continuation is spliced into the same
 *   stream (attempt kind `resumed`), once.
 */
import type { GatewayContext } from '../pipeline/context.ts';
import { streamInterrupted, streamStalled, type GatewayError } from '../kernel/errors.ts';
import type { Logger } from '../kernel/logger.ts';
import type { ChatChunk, Usage } from '../providers/openai-types.ts';
import { AttemptError } from './attempt-error.ts';
import { recordAttempt } from './attempts.ts';
import { deploymentOf } from './breaker.ts';
import type { OpenStream } from './call.ts';
import { MIN_PACE_TOKENS, latencyBook } from './latency.ts';
import type { Opened } from './opened.ts';
import { addUsage, cutLegUsage, resume } from './resume.ts';
import { timeoutsFor } from './timeouts.ts';
import { breakerFor } from './try-targets.ts';

/** Longest wait for the usage chunk after the finish_reason (capped by the idle timeout). */
export const AFTER_FINISH_GRACE_MS = 1000;

export type { Opened } from './opened.ts';

/** What a mid-stream failure looks like to the client. */
export function midStreamError(error: AttemptError): GatewayError {
  const timedOut = error.timedOut || error.info.code === 'upstream_timeout';
  const reason = timedOut ? 'stalled' : 'broke off';
  const message = `The upstream ${reason} after the answer had started: ${error.info.message}`;
  return timedOut ? streamStalled(message) : streamInterrupted(message);
}

const isFinish = (chunk: ChatChunk) => chunk.choices.some((choice) => choice.finish_reason);

/**
 * Where a batch completes the answer: the count of its chunks up to the usage chunk that
 * follows the finish_reason (the rest is not needed), or -1 while the answer goes on.
 */
function completeAt(batch: ChatChunk[], state: { finished: boolean }): number {
  for (let i = 0; i < batch.length; i++) {
    const chunk = batch[i]!;
    if (state.finished && chunk.usage) return i + 1;
    state.finished ||= isFinish(chunk);
  }
  return -1;
}

/** Head then rest of one upstream stream, in batches, ending early once the answer is complete. */
async function* chunksOf(opened: OpenStream, graceMs: number): AsyncGenerator<ChatChunk[]> {
  const state = { finished: false };
  const headEnd = completeAt(opened.head, state);
  if (headEnd !== -1) {
    yield opened.head.slice(0, headEnd);
    drain(opened, graceMs);
    return;
  }
  if (opened.head.length) yield opened.head;
  for (;;) {
    const finished = state.finished;
    const pending = opened.rest.next();
    let next: IteratorResult<ChatChunk[]>;
    if (!finished) next = await pending;
    else {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, graceMs, 'late')));
      const raced = await Promise.race([pending, late]).finally(() => clearTimeout(timer));
      if (raced === 'late') {
        pending.catch(() => {}); // the abort below rejects it
        opened.abort();
        return;
      }
      next = raced;
    }
    if (next.done) return;
    const end = completeAt(next.value, state);
    if (end === -1) {
      yield next.value;
      continue;
    }
    // The answer and its usage are in: end the client's stream now, and let the upstream's
    // end marker drain in the background so its connection goes back to the pool.
    yield end === next.value.length ? next.value : next.value.slice(0, end);
    drain(opened, graceMs);
    return;
  }
}

/** Read what is left of a finished stream off the request path; abort it if it lingers. */
function drain(opened: OpenStream, graceMs: number) {
  const timer = setTimeout(opened.abort, graceMs);
  void (async () => {
    try {
      while (!(await opened.rest.next()).done);
    } catch {
      // a tail that breaks after the finish changes nothing
    } finally {
      clearTimeout(timer);
    }
  })();
}

export interface RelayDeps {
  now(): number;
  /** Abort handle for the renderer: always the stream currently relayed. */
  setAbort(abort: () => void): void;
  /** Where a resume is reported. */
  logger?: Logger;
}

/** A stream that closed before its finish_reason: cut, even though no error was raised. */
function endedEarly(): AttemptError {
  const message = 'The upstream closed the stream before the answer was finished.';
  return new AttemptError(message, { status: 502, message, type: 'upstream_error', code: 'stream_interrupted', param: null }, true, true);
}

/** Relay a committed stream to the end, resuming it once on a target that can continue it if it breaks. */
export async function* relay(ctx: GatewayContext, first: Opened, deps: RelayDeps): AsyncGenerator<ChatChunk[]> {
  let current = first;
  let text = '';
  /** The text of the leg being relayed, and the usage of the cut leg before it (once resumed). */
  let legText = '';
  let carried: Usage | undefined;
  let sawToolCalls = false;
  let finished = false;
  let frame: { id: string; created: number; model: string } | undefined;
  let startedAt = deps.now();
  /** Whitespace trimmed off the prefix sent for a resume, expected again at the continuation's start. */
  let overlap = '';
  /** The usage the leg being relayed reported, for its upstream call's span. */
  let legUsage: Usage | undefined;
  /** The stream got to its end (else it was abandoned: the client left). */
  let ended = false;
  try {
    for (;;) {
      deps.setAbort(current.stream.abort);
      const grace = Math.min(AFTER_FINISH_GRACE_MS, timeoutsFor(ctx.snapshot.config, current.target).idle);
      // A stream being relayed is a call in flight (least_busy), and its pace is learned (lowest_latency).
      const legStats = latencyBook(ctx.runtime).of(deploymentOf(current.target.provider.id, current.target.upstreamModel));
      legStats.inFlight++;
      try {
        for await (const batch of chunksOf(current.stream, grace)) {
          for (const chunk of batch) {
            frame ??= { id: chunk.id, created: chunk.created, model: chunk.model };
            // One chunk stream for the client, whichever upstream produced the piece.
            chunk.id = frame.id;
            chunk.created = frame.created;
            chunk.model = frame.model;
            if (chunk.usage) {
              legUsage = chunk.usage;
              if (carried) chunk.usage = addUsage(carried, chunk.usage);
            }
            for (const choice of chunk.choices) {
              if (carried) delete choice.delta?.role; // the client has its role chunk already
              if (overlap && choice.delta?.content) {
                // The client already has this whitespace: splice without doubling it.
                if (choice.delta.content.startsWith(overlap)) choice.delta.content = choice.delta.content.slice(overlap.length);
                overlap = '';
              }
              if (choice.delta?.content) {
                text += choice.delta.content;
                legText += choice.delta.content;
              }
              if (choice.delta?.tool_calls?.length) sawToolCalls = true;
              if (choice.finish_reason) finished = true;
            }
          }
          yield batch;
        }
        // Closed without a finish_reason or the format's own end marker: a cut, never an answer.
        if (!finished && !current.stream.translator.done) throw endedEarly();
        const tokens = legUsage?.completion_tokens ?? 0;
        if (tokens >= MIN_PACE_TOKENS) legStats.recordPerToken((deps.now() - startedAt) / tokens);
        ended = true;
        return;
      } catch (error) {
        if (!(error instanceof AttemptError)) throw error; // the client left: nothing to report
        if (finished) {
          ended = true; // the answer was complete; a broken tail changes nothing
          return;
        }
        recordAttempt(ctx, current.target, deps.now() - startedAt, error.info.status, error.info.code ?? 'stream_interrupted', current.kind);
        if (error.upstreamFault) await breakerFor(ctx).failure(deploymentOf(current.target.provider.id, current.target.upstreamModel)).catch(() => {});
        // Formats that take a prefill refuse one ending in whitespace: send it trimmed.
        const prefix = text.trimEnd();
        // Once per request (a continuation that breaks again ends the stream), and never past the
        // total deadline: an answer that ran that long is not continued, it is ended.
        const resumable = !carried && !sawToolCalls && prefix !== '' && error.deadline !== 'total';
        const resumed = resumable ? await resume(ctx, prefix, current, deps.now, deps.logger) : null;
        if (!resumed) throw midStreamError(error);
        carried = cutLegUsage(ctx, legText);
        legText = '';
        legUsage = undefined;
        overlap = text.slice(prefix.length);
        current = resumed;
        startedAt = deps.now();
      } finally {
        legStats.inFlight--;
      }
    }
  } finally {
    // The upstream call being relayed is over (its break, if any, was recorded already).
    ctx.trace?.endStream({ usage: legUsage, aborted: !ended });
  }
}
