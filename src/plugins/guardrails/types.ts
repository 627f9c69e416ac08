/**
 * The guardrail API: what a check sees (text and context) and what it answers. Built-in checks
 * and a plugin author's own (examples/plugins/no-competitors.ts) speak the same types.
 *
 * Two kinds of check:
 * - a *scanner* finds spans in a text, synchronously: it can block, flag or redact (the span is
 *   replaced by `[CATEGORY]`), and it runs chunk by chunk on a stream;
 * - a *judge* answers for a whole text, maybe asynchronously (a webhook, a moderation model, a
 *   JSON schema): it can block or flag, and on a stream it runs once the answer is complete.
 */
import type { GatewayContext } from '../../pipeline/context.ts';

export type Stage = 'input' | 'output';
export type GuardrailAction = 'block' | 'redact' | 'flag';

/** A span of the text a scanner matched; `category` names its placeholder (`email` → `[EMAIL]`). */
export interface Finding {
  start: number;
  end: number;
  category: string;
}

export interface Scanner {
  kind: 'scan';
  scan(text: string): Finding[];
  /**
   * Where a match may be starting that is not complete yet (a private key block's BEGIN line
   * without its END): a stream holds its text back from there. -1 when none.
   */
  holdFrom?(text: string): number;
}

/** A judge's answer: the categories it found (none: the text passes). */
export interface Judgement {
  categories: string[];
}

export interface Judge {
  kind: 'judge';
  judge(text: string, ctx: GatewayContext, stage: Stage): Judgement | Promise<Judgement>;
}

export type Check = Scanner | Judge;

/** A judge that could not answer (webhook down, moderation model failing): its fail mode decides. */
export class CheckUnavailable extends Error {
  constructor(
    message: string,
    readonly failMode: 'open' | 'closed',
  ) {
    super(message);
    this.name = 'CheckUnavailable';
  }
}

/** A guardrail ready to run: a check, where it runs, and what a positive verdict does. */
export interface Guardrail {
  name: string;
  /** The check's type as configured (`pii`, `webhook`, ...), recorded with each verdict. */
  type: string;
  stages: ReadonlySet<Stage>;
  action: GuardrailAction;
  check: Check;
}
