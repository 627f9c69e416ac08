/**
 * POST /api/v1beta/models/{model}:countTokens: `{"totalTokens": N}` for `contents` (or a whole
 * `generateContentRequest`). Answered by the model's generateContent upstream when its first
 * deployment is one (the upstream's own tokenizer; its key never leaves the gateway), else by the
 * gateway's estimate (the one model fit uses, as for the Messages API's count_tokens). Not a model call:
 * neither logged nor counted against limits, but the caller, its scope and its model permissions
 * are checked as for generateContent.
 */
import { scopeOf } from '../../auth/route-scopes.ts';
import { refuseDeepBody } from '../../http/json-depth.ts';
import { invalidValue, modelNotFound } from '../../kernel/errors.ts';
import type { Gateway } from '../../pipeline/gateway.ts';
import type { Snapshot } from '../../config/snapshot.ts';
import { modelResource } from '../../providers/gemini.ts';
import { jsonHeaders, trimSlash } from '../../providers/shared.ts';
import type { Target } from '../../providers/types.ts';
import { estimatePrompt } from '../../routing/fit.ts';
import { resolveModel } from '../../routing/resolve.ts';
import { askUpstreamCount, authorizeCount } from '../inference/token-count.ts';
import { isObject } from './fields.ts';
import { generateToChat } from './to-chat.ts';

const SCOPE = scopeOf('POST', '/api/v1beta/models/:model');

type ReadBody = () => Promise<{ value: unknown; text: string }>;

export async function countTokens(gateway: Gateway, request: Request, ip: string, model: string, read: ReadBody): Promise<Response> {
  const snapshot = gateway.runtime.current();
  await authorizeCount(gateway, snapshot, request, ip, SCOPE, model);
  const { value } = await read();
  refuseDeepBody(value);
  if (!isObject(value)) throw invalidValue('The request body must be a JSON object.');
  const inner = value.generateContentRequest;
  if (inner !== undefined && value.contents !== undefined) throw invalidValue("Send 'contents' or 'generateContentRequest', not both.", 'contents');
  const generate = inner === undefined ? { contents: value.contents } : inner;
  if (inner !== undefined && !isObject(inner)) throw invalidValue("'generateContentRequest' must be an object.", 'generateContentRequest');
  const chat = generateToChat(generate, model, false); // the same checks as generateContent
  const targets = resolveModel(snapshot, model);
  if (targets.length === 0) throw modelNotFound(model);
  const upstream = targets[0]!.provider.type === 'vendor_c' ? await upstreamCount(gateway, snapshot, targets[0]!, value, inner !== undefined) : null;
  if (upstream) return upstream;
  // The estimate the model fit uses: the messages' text, and the tools a generateContentRequest declares.
  return Response.json({ totalTokens: estimatePrompt(chat) });
}

/**
 * The upstream's count, its answer (or its error, in Google's shape already) passed on; null when
 * it cannot be reached, and the estimate answers instead.
 */
async function upstreamCount(gateway: Gateway, snapshot: Snapshot, target: Target, body: Record<string, unknown>, wrapped: boolean): Promise<Response | null> {
  const resource = modelResource(target.upstreamModel);
  const sent = wrapped ? { generateContentRequest: { ...(body.generateContentRequest as object), model: resource } } : body;
  try {
    const reply = await askUpstreamCount(gateway, snapshot, target, {
      url: `${trimSlash(target.provider.endpoint)}/v1beta/${resource}:countTokens`,
      headers: jsonHeaders(target, { 'x-goog-api-key': target.provider.api_key ?? '' }),
      body: JSON.stringify(sent),
    });
    return new Response(reply.text, { status: reply.status, headers: { 'content-type': 'application/json; charset=UTF-8' } });
  } catch {
    return null;
  }
}
