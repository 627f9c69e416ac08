/**
 * Resuming a cut stream by prefix: which targets may continue a partial answer, how each is asked
 * to (its `prefix_style`), and the memory of targets that refused a prefix, so they are not sent
 * one again.
 */
import type { PrefixStyle } from '../config/types.ts';
import type { GatewayContext } from '../pipeline/context.ts';
import type { ChatMessage, ChatRequest } from '../providers/openai-types.ts';
import type { ProviderAdapter, Target } from '../providers/types.ts';
import { deploymentOf } from './breaker.ts';

/** How long a target that refused a prefix is not sent one again. */
export const PREFIX_REFUSAL_TTL_MS = 60 * 60_000;

const refusalKey = (target: Target) => `gw:prefix-refused:${deploymentOf(target.provider.id, target.upstreamModel)}`;

/** How this target continues a prefix, or null when it is not declared to or its wire format cannot. */
export function prefixStyleOf(target: Target, adapter: ProviderAdapter): PrefixStyle | null {
  if (!(target.model?.accepts_prefix ?? target.provider.accepts_prefix ?? false) || !adapter.supportsPrefix) return null;
  const style = target.model?.prefix_style ?? target.provider.prefix_style ?? 'trailing_assistant';
  const styles = adapter.prefixStyles ?? ['trailing_assistant'];
  return styles.includes(style) ? style : null;
}

/** The request asking for the rest of an answer that starts with `text`, in the target's style. */
export function continuationRequest(body: ChatRequest, text: string, style: PrefixStyle): ChatRequest {
  const partial: ChatMessage = { role: 'assistant', content: text };
  const request: ChatRequest = { ...body, messages: [...body.messages, partial] };
  if (style === 'prefix') partial.prefix = true; // DeepSeek, Mistral
  if (style === 'continue_final_message') {
    // vLLM: continue the last message instead of opening a new turn (the two flags go together).
    request.continue_final_message = true;
    request.add_generation_prompt = false;
  }
  return request;
}

/**
 * The targets that may continue the answer cut on `ctx.targets[index]`: the later ones (the
 * fallbacks) first, then that target itself, which is the rescue when nothing else can continue;
 * never one that refused a prefix before. One store round trip.
 */
export async function continuationTargets(ctx: GatewayContext, index: number): Promise<Array<{ target: Target; index: number }>> {
  const order = [...ctx.targets.keys()].filter((i) => i > index);
  order.push(index);
  const able = order
    .map((i) => ({ target: ctx.targets[i]!, index: i }))
    .filter(({ target }) => prefixStyleOf(target, ctx.runtime.adapters.get(target.provider)) !== null);
  if (!able.length) return able;
  const refused = await ctx.runtime.store.getCounters(able.map(({ target }) => refusalKey(target)));
  return able.filter((_, i) => refused[i] === 0);
}

/** Remember that a target refused a prefix (it answered the continuation request with a 4xx). */
export function rememberRefusal(ctx: GatewayContext, target: Target): Promise<void> {
  return ctx.runtime.store.set(refusalKey(target), '1', PREFIX_REFUSAL_TTL_MS);
}
