/**
 * Resume a stream cut after the commit: send the answer so far as a prefix to a target that can
 * continue it (prefix.ts) and hand back the continuation, once per request. The client's usage
 * then covers both legs: the cut one (estimated, its usage never came) plus the continuation's.
 */
import { estimatePromptTokens, estimateTokens } from '../kernel/estimate-tokens.ts';
import type { Logger } from '../kernel/logger.ts';
import type { GatewayContext } from '../pipeline/context.ts';
import type { Usage } from '../providers/openai-types.ts';
import { AttemptError } from './attempt-error.ts';
import { openStream, type AttemptInput, type OpenStream } from './call.ts';
import { continuationRequest, continuationTargets, prefixStyleOf, rememberRefusal } from './prefix.ts';
import type { Opened } from './opened.ts';
import { tryTargets } from './try-targets.ts';

/**
 * Open the continuation of `text`, cut on `from`, on the first target able to give it; null when
 * none can (the caller then ends the stream with the original break).
 */
export async function resume(ctx: GatewayContext, text: string, from: Opened, now: () => number, logger?: Logger): Promise<Opened | null> {
  if (ctx.signal.aborted) return null;
  const candidates = await continuationTargets(ctx, from.index).catch(() => []);
  if (!candidates.length) return null;
  const continueFrom = (input: AttemptInput) => openContinuation(ctx, input, text);
  try {
    const success = await tryTargets(ctx, continueFrom, { targets: candidates.map((c) => c.target), request: ctx.body, kind: 'resumed' }, now);
    const opened: Opened = { stream: success.value, target: success.target, index: candidates[success.index]!.index, kind: 'resumed' };
    logger?.info('stream resumed', {
      request: ctx.id,
      from: `${from.target.provider.id}/${from.target.upstreamModel}`,
      to: `${opened.target.provider.id}/${opened.target.upstreamModel}`,
      prefix_chars: text.length,
    });
    return opened;
  } catch {
    // A refused or failed continuation must not become the caller's error: the original break is reported.
    return null;
  }
}

/** One continuation attempt; a 4xx means this target refuses prefixes: remember it, try the next one. */
async function openContinuation(ctx: GatewayContext, input: AttemptInput, text: string): Promise<OpenStream> {
  const style = prefixStyleOf(input.target, input.adapter) ?? 'trailing_assistant';
  try {
    return await openStream({ ...input, request: continuationRequest(input.request, text, style) });
  } catch (error) {
    if (!(error instanceof AttemptError) || error.info.status < 400 || error.info.status >= 500 || error.info.status === 429) throw error;
    await rememberRefusal(ctx, input.target).catch(() => {});
    throw new AttemptError(error.message, error.info, false, true);
  }
}

/** What the cut leg cost, estimated: its prompt, and the text it produced. */
export function cutLegUsage(ctx: GatewayContext, legText: string): Usage {
  const prompt = estimatePromptTokens(ctx.body.messages);
  const completion = estimateTokens(legText);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** Both legs' usage as one. */
export function addUsage(carried: Usage, usage: Usage): Usage {
  return {
    ...usage,
    prompt_tokens: carried.prompt_tokens + usage.prompt_tokens,
    completion_tokens: carried.completion_tokens + usage.completion_tokens,
    total_tokens: carried.total_tokens + usage.total_tokens,
  };
}
