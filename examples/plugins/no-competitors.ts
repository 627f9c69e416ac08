/**
 * Example custom guardrail: competitors' names never go to the model nor come back from it. With
 * `action: redact` (the default here) each becomes `[COMPETITOR]`; `block` refuses the request
 * with `guardrail_blocked`; `flag` only records it in the call log. Load it from gateway.yaml:
 *
 *   pipeline:
 *     - log
 *     - auth
 *     - ...
 *     - name: no-competitors
 *       module: ./examples/plugins/no-competitors.ts
 *       options: { names: [Acme, Globex], action: redact, stage: both }
 *     - cache
 *     - upstream
 */
import { defineGuardrail, type Finding } from '../../src/plugins/guardrails/define.ts';

interface Options {
  names: string[];
}

export default defineGuardrail<Options>({
  name: 'no-competitors',
  schema: {
    type: 'object',
    required: ['names'],
    properties: {
      names: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      action: { enum: ['block', 'redact', 'flag'], default: 'redact' },
    },
  },
  // Text in, spans out: the gateway blocks, redacts or flags them, on streams too.
  scan(text, { names }): Finding[] {
    const found: Finding[] = [];
    const lower = text.toLowerCase();
    for (const name of names) {
      for (let at = lower.indexOf(name.toLowerCase()); at !== -1; at = lower.indexOf(name.toLowerCase(), at + name.length)) {
        found.push({ start: at, end: at + name.length, category: 'competitor' });
      }
    }
    return found;
  },
});
