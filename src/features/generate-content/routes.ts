/**
 * POST /api/v1beta/models/{model}:generateContent, :streamGenerateContent and :countTokens, the
 * paths the Google GenAI SDK calls under `httpOptions.baseUrl: "{gateway}/api"`. The body is
 * translated to chat (to-chat.ts) and runs through the same pipeline as chat, rendered back in
 * Google's shape (renderer.ts). Every error, before the pipeline too, is in Google's shape.
 */
import type { Logger } from '../../kernel/logger.ts';
import { clientSignal } from '../../http/client-signal.ts';
import { renderError } from '../../http/handle.ts';
import { createContext } from '../../pipeline/context.ts';
import type { Gateway } from '../../pipeline/gateway.ts';
import { beforePipeline, readClientBody } from '../inference/ingress.ts';
import { readJson } from '../../http/read-body.ts';
import { countTokens } from './count-tokens.ts';
import { googleErrorResponse } from './errors.ts';
import { generateRenderer } from './renderer.ts';
import { readCall } from './request.ts';
import { generateToChat } from './to-chat.ts';

export async function handleGenerate(gateway: Gateway, logger: Logger, request: Request, ip: string): Promise<Response> {
  try {
    return await generate(gateway, request, ip);
  } catch (error) {
    // Refused before the pipeline (which renders its own errors): a request id of its own.
    return renderError(error, logger, (refusal, id) => googleErrorResponse(refusal, [['x-request-id', id]]));
  }
}

async function generate(gateway: Gateway, original: Request, ip: string): Promise<Response> {
  const { snapshot, pipeline } = gateway.config.current();
  const ctx = await beforePipeline(gateway, 'generate_content', async () => {
    const { model, method, request } = readCall(original);
    const limit = snapshot.config.server.body_limit;
    if (method === 'countTokens') return countTokens(gateway, request, ip, model, () => readJson(original, limit));
    const stream = method === 'streamGenerateContent';
    // The body is the client's request's: the pipeline's copy carries only its credential.
    const { raw, body } = await readClientBody(gateway, request, limit, (value) => generateToChat(value, model, stream), original);
    return createContext({
      request, endpoint: 'generate_content', runtime: gateway.runtime, snapshot, ip, body, rawBody: raw.value, rawBodyText: raw.text,
      signal: clientSignal(original), renderer: generateRenderer,
    });
  });
  // countTokens is answered before the pipeline: no model call.
  return ctx instanceof Response ? ctx : pipeline.run(ctx);
}
