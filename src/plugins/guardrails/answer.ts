/**
 * Output guardrails on a whole (non-streamed) answer, a cached one included: each choice's text
 * is checked; a redaction gives a new completion, rendered again in the endpoint's shape.
 */
import type { GatewayContext } from '../../pipeline/context.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { ChatCompletion } from '../../providers/openai-types.ts';
import { redact } from './checks/spans.ts';
import type { Guardrail } from './types.ts';
import { openVerdict, positive, unavailable } from './verdicts.ts';

/** The redacted completion, or undefined when the answer goes out as it is (throws to block). */
export async function guardAnswer(ctx: GatewayContext, guardrails: readonly Guardrail[], logger: Logger): Promise<ChatCompletion | undefined> {
  const completion = ctx.outcome.response as ChatCompletion | undefined;
  if (!completion || !Array.isArray(completion.choices)) return undefined;
  const contents = completion.choices.map((choice) => (typeof choice.message?.content === 'string' ? choice.message.content : null));
  let changed = false;
  for (const guardrail of guardrails) {
    const verdict = openVerdict(ctx, guardrail, 'output');
    const check = guardrail.check;
    for (const [index, text] of contents.entries()) {
      if (text === null) continue;
      if (check.kind === 'scan') {
        const findings = check.scan(text);
        if (!findings.length) continue;
        positive(verdict, findings.map((finding) => finding.category));
        if (guardrail.action === 'redact') {
          contents[index] = redact(text, findings);
          changed = true;
        }
        continue;
      }
      try {
        const { categories } = await check.judge(text, ctx, 'output');
        if (categories.length) positive(verdict, categories);
      } catch (error) {
        unavailable(ctx, verdict, error, logger);
      }
    }
  }
  if (!changed) return undefined;
  const redacted: ChatCompletion = {
    ...completion,
    choices: completion.choices.map((choice, index) => (contents[index] === null ? choice : { ...choice, message: { ...choice.message, content: contents[index]! } })),
  };
  ctx.outcome.response = redacted;
  ctx.outcome.text = contents.map((content) => content ?? '').join('');
  return redacted;
}
