/**
 * Output guardrails on a stream, chunk by chunk, never the whole answer held: each choice's text
 * is held back by a bounded window before it leaves, so a match split across chunks is seen
 * whole before any of it is sent.
 *
 * What leaves is the text up to the last whitespace at least `hold_back_chars` before the end of
 * what has arrived (a word still arriving, an email, a key or a JWT, is held whole), moved back
 * to the start of any match it would cut, of digit groups before it (a card or an IBAN written in
 * groups of four) and of a private key block still open. Matches no longer
 * than the window are therefore never split; longer ones are held whole while they have no
 * whitespace, up to `max_hold_chars`, past which the window alone applies. The first token is
 * delayed by at most the window (README "Guardrails").
 *
 * A block ends the stream with the endpoint's own error event (the chunk generator throws; the
 * renderer writes it). Judges (JSON, webhook, moderation) need the whole answer: they run once a
 * choice finishes, before its finish chunk leaves.
 */
import type { GatewayContext } from '../../pipeline/context.ts';
import type { Renderer } from '../../pipeline/render.ts';
import { StreamAssembly } from '../../pipeline/stream-assembly.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { ChatChunk } from '../../providers/openai-types.ts';
import { redact } from './checks/spans.ts';
import type { Finding, Guardrail, Judge, Scanner } from './types.ts';
import { openVerdict, positive, unavailable } from './verdicts.ts';
import type { GuardrailVerdict } from '../../pipeline/outcome.ts';

export interface WindowOptions {
  hold_back_chars: number;
  max_hold_chars: number;
}

interface Running<C> {
  check: C;
  action: Guardrail['action'];
  verdict: GuardrailVerdict;
}

interface ChoiceState {
  pending: string;
  /** The whole raw text, kept only when a judge needs it. */
  full: string;
}

/** The renderer with its stream passing through the output guardrails. */
export function guardedRenderer(renderer: Renderer, guardrails: readonly Guardrail[], window: WindowOptions, logger: Logger): Renderer {
  return {
    ...renderer,
    stream(ctx, chunks, abort) {
      return renderer.stream(ctx, guardChunks(ctx, chunks, guardrails, window, logger), abort);
    },
  };
}

export async function* guardChunks(
  ctx: GatewayContext,
  batches: AsyncIterable<ChatChunk[]>,
  guardrails: readonly Guardrail[],
  window: WindowOptions,
  logger: Logger,
): AsyncGenerator<ChatChunk[]> {
  const scanners: Running<Scanner>[] = [];
  const judges: Running<Judge>[] = [];
  for (const guardrail of guardrails) {
    const running = { action: guardrail.action, verdict: openVerdict(ctx, guardrail, 'output') };
    if (guardrail.check.kind === 'scan') scanners.push({ ...running, check: guardrail.check });
    else judges.push({ ...running, check: guardrail.check });
  }
  const states = new Map<number, ChoiceState>();
  const sent = new StreamAssembly();
  let text = '';
  try {
    for await (const batch of batches) {
      const out: ChatChunk[] = [];
      for (const chunk of batch) {
        for (const choice of chunk.choices) {
          const content = choice.delta?.content;
          if (!content && !choice.finish_reason) continue;
          let state = states.get(choice.index);
          if (!state) states.set(choice.index, (state = { pending: '', full: '' }));
          let leaving = '';
          if (content) {
            state.pending += content;
            if (judges.length) state.full += content;
            leaving = release(state, scanners, window, false);
          }
          if (choice.finish_reason) {
            leaving += release(state, scanners, window, true);
            await judge(ctx, judges, state.full, logger);
          }
          if (content || leaving) choice.delta.content = leaving;
          text += leaving;
        }
        if (carriesSomething(chunk)) {
          sent.add(chunk);
          out.push(chunk);
        }
      }
      if (out.length) yield out;
    }
  } finally {
    // The log and the cache keep what the client was sent, not what the upstream said.
    ctx.outcome.text = text;
    ctx.outcome.assembly = sent;
  }
}

/** The text of `state` that may leave now, redacted; what stays is held for the next chunk. */
function release(state: ChoiceState, scanners: readonly Running<Scanner>[], window: WindowOptions, final: boolean): string {
  const text = state.pending;
  if (!text) return '';
  const findings: Array<Finding & { scanner: Running<Scanner> }> = [];
  for (const scanner of scanners) for (const finding of scanner.check.scan(text)) findings.push({ ...finding, scanner });
  let cut = final ? text.length : safeCut(text, scanners, window);
  // Never cut through a match: it leaves whole once it is complete.
  for (let moved = true; moved && cut > 0; ) {
    moved = false;
    for (const finding of findings) {
      if (finding.start < cut && finding.end > cut) {
        cut = finding.start;
        moved = true;
      }
    }
  }
  if (cut === 0) return '';
  const settled = findings.filter((finding) => finding.end <= cut);
  for (const finding of settled) positive(finding.scanner.verdict, [finding.category]);
  state.pending = text.slice(cut);
  return redact(text.slice(0, cut), settled.filter((finding) => finding.scanner.action === 'redact'));
}

function safeCut(text: string, scanners: readonly Running<Scanner>[], window: WindowOptions): number {
  const limit = text.length - window.hold_back_chars;
  if (limit <= 0) return 0;
  let cut = numberRunStart(text, lastWhitespace(text, limit));
  if (text.length - cut > window.max_hold_chars) cut = limit;
  for (const { check } of scanners) {
    const open = check.holdFrom?.(text) ?? -1;
    if (open >= 0 && open < cut && text.length - open <= window.max_hold_chars) cut = open;
  }
  return Math.max(cut, 0);
}

/**
 * Moves a cut back over the short digit groups before it (`4111 1111`, `+44 20`, `DE89 3704`): a
 * card, phone number or IBAN written in groups has spaces inside, and may be longer than the window.
 */
function numberRunStart(text: string, cut: number): number {
  for (;;) {
    const start = text.lastIndexOf(' ', cut - 1) + 1;
    if (start >= cut || !NUMBER_GROUP.test(text.slice(start, cut))) return cut;
    cut = Math.max(start - 1, 0);
    if (cut === 0) return 0;
  }
}

const NUMBER_GROUP = /^[0-9A-Z+().-]{1,6}$/;

/** Index of the last whitespace at or before `at`, 0 when there is none. */
function lastWhitespace(text: string, at: number): number {
  for (let i = at; i > 0; i--) {
    const code = text.charCodeAt(i);
    if (code === 32 || code === 10 || code === 9 || code === 13) return i;
  }
  return 0;
}

async function judge(ctx: GatewayContext, judges: readonly Running<Judge>[], text: string, logger: Logger): Promise<void> {
  for (const running of judges) {
    try {
      const { categories } = await running.check.judge(text, ctx, 'output');
      if (categories.length) positive(running.verdict, categories);
    } catch (error) {
      unavailable(ctx, running.verdict, error, logger);
    }
  }
}

/** A chunk whose held-back text left it empty and that carries nothing else is not sent. */
function carriesSomething(chunk: ChatChunk): boolean {
  if (chunk.usage || chunk.choices.length === 0) return true;
  return chunk.choices.some((choice) => choice.finish_reason || choice.delta?.content || Object.keys(choice.delta ?? {}).some((key) => key !== 'content'));
}
