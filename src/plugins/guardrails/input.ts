/**
 * Input guardrails: run before the upstream (and before the cache, whose key then holds no
 * redacted secret), in the order gateway.yaml lists them. A scanner reads each message text on
 * its own; a judge reads them all, joined. Redaction writes a copy of the body: the upstream
 * gets the placeholders, the client's parsed body stays as it came.
 */
import type { GatewayContext } from '../../pipeline/context.ts';
import type { Logger } from '../../pipeline/types.ts';
import { redact } from './checks/spans.ts';
import { requestTexts, withTexts, type RequestText } from './texts.ts';
import type { Guardrail } from './types.ts';
import { openVerdict, positive, unavailable } from './verdicts.ts';

export async function guardInput(ctx: GatewayContext, guardrails: readonly Guardrail[], logger: Logger): Promise<void> {
  const texts: RequestText[] = [...requestTexts(ctx.body)];
  const changed = new Set<RequestText>();
  for (const guardrail of guardrails) {
    const verdict = openVerdict(ctx, guardrail, 'input');
    const check = guardrail.check;
    if (check.kind === 'scan') {
      for (const piece of texts) {
        const findings = check.scan(piece.text);
        if (!findings.length) continue;
        positive(verdict, findings.map((finding) => finding.category));
        if (guardrail.action === 'redact') {
          piece.text = redact(piece.text, findings);
          changed.add(piece);
        }
      }
      continue;
    }
    try {
      const { categories } = await check.judge(texts.map((piece) => piece.text).join('\n'), ctx, 'input');
      if (categories.length) positive(verdict, categories);
    } catch (error) {
      unavailable(ctx, verdict, error, logger);
    }
  }
  if (changed.size) ctx.body = withTexts(ctx.body, [...changed]);
}
