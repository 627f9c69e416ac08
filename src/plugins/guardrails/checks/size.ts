/**
 * Input size: the prompt's estimated tokens (the estimator the router uses to fit a model,
 * src/kernel/estimate-tokens.ts) and its characters. A judge over the whole request, not a
 * text: it runs on input only.
 */
import { estimatePromptTokens } from '../../../kernel/estimate-tokens.ts';
import type { GatewayContext } from '../../../pipeline/context.ts';
import type { Judge } from '../types.ts';
import { requestTexts } from '../texts.ts';

export function sizeJudge(limits: { max_tokens?: number; max_chars?: number }): Judge {
  return {
    kind: 'judge',
    judge(_text, ctx: GatewayContext) {
      const categories: string[] = [];
      if (limits.max_chars !== undefined) {
        let chars = 0;
        for (const piece of requestTexts(ctx.body)) chars += piece.text.length;
        if (chars > limits.max_chars) categories.push('too_many_chars');
      }
      if (limits.max_tokens !== undefined) {
        const tokens = ctx.endpoint === 'embeddings' ? estimateEmbeddingTokens(ctx) : estimatePromptTokens(ctx.body.messages);
        if (tokens > limits.max_tokens) categories.push('too_many_tokens');
      }
      return { categories };
    },
  };
}

function estimateEmbeddingTokens(ctx: GatewayContext): number {
  let text = '';
  for (const piece of requestTexts(ctx.body)) text += `${piece.text}\n`;
  return estimatePromptTokens([{ role: 'user', content: text }]);
}
