/**
 * What each guardrail decided, recorded on the outcome (the call log, the metrics and the trace
 * read it): the guardrail, its check, stage, action and result, and the categories found, never
 * the text that matched. A positive verdict's action is applied here: `block` throws the error
 * the client sees in its endpoint's shape.
 */
import { guardrailBlocked, guardrailUnavailable } from '../../kernel/errors.ts';
import type { GatewayContext } from '../../pipeline/context.ts';
import type { GuardrailVerdict } from '../../pipeline/outcome.ts';
import type { Logger } from '../../pipeline/types.ts';
import { CheckUnavailable, type Guardrail, type Stage } from './types.ts';

/** Starts a verdict (result `pass`) on the outcome; the caller updates it as findings come. */
export function openVerdict(ctx: GatewayContext, guardrail: Guardrail, stage: Stage): GuardrailVerdict {
  const verdict: GuardrailVerdict = { guardrail: guardrail.name, check: guardrail.type, stage, action: guardrail.action, result: 'pass', categories: [] };
  (ctx.outcome.guardrails ??= []).push(verdict);
  return verdict;
}

/** Applies a positive finding: `block` throws; `redact` and `flag` are recorded (the caller redacts). */
export function positive(verdict: GuardrailVerdict, categories: Iterable<string>): void {
  for (const category of categories) if (!verdict.categories.includes(category)) verdict.categories.push(category);
  if (verdict.action === 'block') {
    verdict.result = 'blocked';
    throw guardrailBlocked(verdict.guardrail, verdict.stage, verdict.categories);
  }
  verdict.result = verdict.action === 'redact' ? 'redacted' : 'flagged';
}

/**
 * A judge that could not answer: fail-open passes (recorded as `error`, logged), fail-closed
 * refuses the request. Any other throw is rethrown.
 */
export function unavailable(ctx: GatewayContext, verdict: GuardrailVerdict, error: unknown, logger: Logger): void {
  if (!(error instanceof CheckUnavailable)) throw error;
  verdict.result = 'error';
  verdict.failed = error.failMode;
  logger.warn(`guardrail ${verdict.guardrail} could not check the ${verdict.stage}: ${error.message}; failing ${error.failMode}`, { request: ctx.id });
  if (error.failMode === 'closed') throw guardrailUnavailable(verdict.guardrail, verdict.stage);
}
