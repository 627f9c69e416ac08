/**
 * What a request needs from the model that serves it, checked before any upstream call: the
 * gateway's feature switches (`features.*`), and each model config's declared `capabilities`
 * and `context_length`. A target that cannot serve the request is dropped, so a fallback that
 * can is tried; when none can, the request is refused with a 400 naming the reason.
 */
import type { GatewayConfig } from '../config/types.ts';
import { estimatePromptTokens, estimateTokens } from '../kernel/estimate-tokens.ts';
import { capabilityNotSupported, contextLengthExceeded, featureDisabled, type GatewayError } from '../kernel/errors.ts';
import type { ChatRequest } from '../providers/openai-types.ts';
import { REQUIRED_MAX_TOKENS_DEFAULT, type Target } from '../providers/types.ts';

/** Capabilities a request can need (the names model configs declare in `capabilities`). */
export type Capability = 'function_calling' | 'vision' | 'json_mode';

const NEED: Record<Capability, { what: string; param: string }> = {
  function_calling: { what: 'tools (function calling)', param: 'tools' },
  vision: { what: 'image input (vision)', param: 'messages' },
  json_mode: { what: 'JSON mode (response_format)', param: 'response_format' },
};

export function requiredCapabilities(body: ChatRequest): Capability[] {
  const needed: Capability[] = [];
  if (body.tools?.length || (Array.isArray(body.functions) && body.functions.length)) needed.push('function_calling');
  if (body.messages?.some((message) => Array.isArray(message.content) && message.content.some((part) => part.type === 'image_url'))) needed.push('vision');
  const format = body.response_format?.type;
  if (format === 'json_object' || format === 'json_schema') needed.push('json_mode');
  return needed;
}

/** Refuses what the gateway has switched off, whatever the model. */
function checkFeatures(features: GatewayConfig['features'], body: ChatRequest, needed: Capability[]) {
  if (body.stream && !features.streaming) throw featureDisabled('Streaming is turned off on this gateway.', 'stream');
  for (const capability of ['function_calling', 'vision'] as const) {
    if (needed.includes(capability) && !features[capability]) throw featureDisabled(`${NEED[capability].what} is turned off on this gateway.`, NEED[capability].param);
  }
}

/** The completion allowance the client asked for (0 when it named none). */
function completionTokens(body: ChatRequest): number {
  const asked = body.max_completion_tokens ?? body.max_tokens;
  return typeof asked === 'number' && asked > 0 ? asked : 0;
}

/**
 * A cheap upper bound of the prompt estimate (it never counts more than one token per
 * character): when even this fits, the word-by-word estimate is never run.
 */
function promptBound(body: ChatRequest): number {
  let chars = body.tools ? JSON.stringify(body.tools).length : 0;
  for (const message of body.messages ?? []) {
    chars += 4;
    if (typeof message.content === 'string') chars += message.content.length;
    else if (Array.isArray(message.content)) {
      for (const part of message.content) if ('text' in part && typeof part.text === 'string') chars += part.text.length;
    }
  }
  return chars + 3;
}

/** The prompt's estimated tokens, tools included (also what the Messages ingress's count_tokens answers without an upstream count). */
export const estimatePrompt = (body: ChatRequest) => estimatePromptTokens(body.messages) + (body.tools ? estimateTokens(JSON.stringify(body.tools)) : 0);

/**
 * Where the upstream step keeps the completion allowance chosen for a request that names none: a
 * symbol, so it is never serialised, hashed into a cache key or forwarded as a request field.
 */
const kDefaultMaxTokens = Symbol('gateway.defaultMaxTokens');

interface DefaultAllowance {
  tokens: number;
  /** Configured (`limits.default_max_tokens`): sent to every upstream, not only where required. */
  everywhere: boolean;
}

type WithDefault = ChatRequest & { [kDefaultMaxTokens]?: DefaultAllowance };

/**
 * The completion allowance of a request that names no limit: `limits.default_max_tokens`, else
 * REQUIRED_MAX_TOKENS_DEFAULT, lowered to the smallest `max_output_tokens` among its targets'
 * models. Kept beside the request; see defaultMaxTokensFor for where it is sent. Unconfigured,
 * an OpenAI-wire upstream is never sent a limit the client did not ask for: reasoning models
 * refuse `max_tokens`, and a default would cut their reasoning short.
 */
export function applyDefaultMaxTokens(config: GatewayConfig, body: ChatRequest, targets: Target[]): void {
  if (body.max_tokens !== undefined || body.max_completion_tokens !== undefined) return;
  const configured = config.limits.default_max_tokens;
  let tokens = configured ?? REQUIRED_MAX_TOKENS_DEFAULT;
  for (const { model } of targets) if (model?.max_output_tokens) tokens = Math.min(tokens, model.max_output_tokens);
  (body as WithDefault)[kDefaultMaxTokens] = { tokens, everywhere: configured !== undefined };
}

/**
 * The default limit to send one target (undefined: none, because the client named one, or none
 * is configured and the wire format does not `require` one), lowered to what the target's
 * context leaves after the prompt, so the default never makes a request fail that would fit
 * without it. The prompt is estimated only then.
 */
export function defaultMaxTokensFor(body: ChatRequest, target: Target, required: boolean): number | undefined {
  const allowance = (body as WithDefault)[kDefaultMaxTokens];
  if (!allowance || (!required && !allowance.everywhere)) return undefined;
  const context = target.model?.context_length;
  if (!context || promptBound(body) + allowance.tokens <= context) return allowance.tokens;
  return Math.max(1, Math.min(allowance.tokens, context - estimatePrompt(body)));
}

/** The targets that can serve `body`, in order; throws the first reason when none can. */
export function fittingTargets(config: GatewayConfig, body: ChatRequest, targets: Target[]): Target[] {
  const needed = requiredCapabilities(body);
  checkFeatures(config.features, body, needed);
  const completion = completionTokens(body);
  let bound: number | undefined;
  let prompt: number | undefined;
  let refusal: GatewayError | undefined;
  const fitting = targets.filter(({ model, requestedAs }) => {
    if (!model) return true; // `provider/model` without a config: nothing declared to check
    // A model that declares no capabilities is not restricted by them.
    const missing = model.capabilities.length ? needed.find((capability) => !model.capabilities.includes(capability)) : undefined;
    if (missing) {
      refusal ??= capabilityNotSupported(`Model '${requestedAs}' does not support ${NEED[missing].what}.`, NEED[missing].param);
      return false;
    }
    bound ??= promptBound(body);
    if (bound + completion <= model.context_length) return true;
    prompt ??= estimatePrompt(body);
    if (prompt + completion <= model.context_length) return true;
    refusal ??= contextLengthExceeded(
      `This request needs about ${prompt + completion} tokens (${prompt} estimated for the prompt, ${completion} asked for the completion), ` +
        `more than the ${model.context_length} of model '${requestedAs}'.`,
    );
    return false;
  });
  if (!fitting.length && refusal) throw refusal;
  return fitting;
}
