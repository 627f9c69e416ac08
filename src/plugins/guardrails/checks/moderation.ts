/**
 * A moderation model reached through the gateway's own routing: the model's targets (its
 * deployments, then its configured fallbacks), tried in turn. A compat upstream is asked on its
 * OpenAI-compatible `/moderations` endpoint; any other, or any model when `prompt` is set, is
 * asked as a chat model with that prompt and must answer `SAFE` or `UNSAFE: category, ...`.
 * When no target answers, the fail mode decides (as for a webhook).
 */
import type { GatewayContext } from '../../../pipeline/context.ts';
import { callJson } from '../../../routing/call.ts';
import { configuredFallbacks } from '../../../routing/configured-fallbacks.ts';
import { resolveModel } from '../../../routing/resolve.ts';
import { inputFor } from '../../../routing/try-targets.ts';
import type { Target } from '../../../providers/types.ts';
import { CheckUnavailable, type Judge, type Judgement } from '../types.ts';

export interface ModerationOptions {
  model: string;
  timeout_ms: number;
  fail: 'open' | 'closed';
  /** Ask a chat model with this system prompt instead of a `/moderations` endpoint. */
  prompt?: string;
}

export const DEFAULT_MODERATION_PROMPT =
  'You are a content moderator. Read the text the user sends. Answer with exactly SAFE, or UNSAFE: followed by a comma-separated list of categories (hate, harassment, self-harm, sexual, violence, illicit).';

export function moderationJudge(options: ModerationOptions): Judge {
  return {
    kind: 'judge',
    async judge(text, ctx) {
      const targets = [options.model, ...configuredFallbacks(ctx.snapshot, options.model)].flatMap((model) => resolveModel(ctx.snapshot, model));
      if (!targets.length) throw new CheckUnavailable(`moderation model '${options.model}' has no target`, options.fail);
      const failures: string[] = [];
      for (const target of targets) {
        try {
          const useChat = options.prompt !== undefined || target.provider.type !== 'compat';
          return await (useChat ? askChat(ctx, target, text, options) : askModerations(target, text, options.timeout_ms));
        } catch (error) {
          failures.push(`${target.requestedAs}: ${(error as Error).message}`);
        }
      }
      throw new CheckUnavailable(`moderation failed on every target (${failures.join('; ')})`, options.fail);
    },
  };
}

async function askModerations(target: Target, text: string, timeoutMs: number): Promise<Judgement> {
  const response = await fetch(`${target.provider.endpoint.replace(/\/+$/, '')}/moderations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${target.provider.api_key ?? ''}` },
    body: JSON.stringify({ model: target.upstreamModel, input: text }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const body = (await response.json()) as { results?: Array<{ flagged?: boolean; categories?: Record<string, boolean> }> };
  const result = body.results?.[0];
  if (!result || typeof result.flagged !== 'boolean') throw new Error('no moderation result');
  if (!result.flagged) return { categories: [] };
  const categories = Object.entries(result.categories ?? {}).filter(([, on]) => on === true).map(([name]) => name);
  return { categories: categories.length ? categories : ['flagged'] };
}

async function askChat(ctx: GatewayContext, target: Target, text: string, options: ModerationOptions): Promise<Judgement> {
  const request = {
    model: target.requestedAs,
    messages: [
      { role: 'system' as const, content: options.prompt ?? DEFAULT_MODERATION_PROMPT },
      { role: 'user' as const, content: text },
    ],
    temperature: 0,
    max_tokens: 32,
  };
  const input = inputFor(ctx.runtime, ctx, target, request);
  input.timeouts = { ...input.timeouts, total: Math.min(input.timeouts.total, options.timeout_ms) };
  const completion = await callJson(input);
  const answer = (completion.choices[0]?.message?.content ?? '').trim();
  const unsafe = /^unsafe\b[:\s]*(.*)$/is.exec(answer);
  if (unsafe) {
    const categories = unsafe[1]!.split(/[,\n]/).map((c) => c.trim().toLowerCase()).filter((c) => /^[a-z][a-z_/-]{0,40}$/.test(c));
    return { categories: categories.length ? categories : ['flagged'] };
  }
  if (/^safe\b/i.test(answer)) return { categories: [] };
  throw new Error('the model answered neither SAFE nor UNSAFE');
}
