/**
 * POST /api/v1beta/models/{model}:generateContent, :streamGenerateContent and :countTokens, the
 * paths the Google GenAI SDK calls under `httpOptions.baseUrl: "{gateway}/api"`. The body is
 * translated to chat (to-chat.ts) and runs through the same pipeline as chat, rendered back in
 * Google's shape (renderer.ts). Every error, before the pipeline too, is in Google's shape.
 */
import { createRequestId } from '../../kernel/request-id.ts';
import { GatewayError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { readJson } from '../../http/read-body.ts';
import { refuseDeepBody } from '../../http/json-depth.ts';
import { clientSignal } from '../../http/client-signal.ts';
import { createContext, type GatewayContext } from '../../pipeline/context.ts';
import type { Gateway } from '../../pipeline/gateway.ts';
import { readBodyCredentialFirst } from '../inference/credential-first.ts';
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
    const id = createRequestId();
    if (!GatewayError.is(error)) logger.error('unhandled error', { request: id, error: error instanceof Error ? error.stack : String(error) });
    return googleErrorResponse(error, [['x-request-id', id]]);
  }
}

async function generate(gateway: Gateway, original: Request, ip: string): Promise<Response> {
  const { snapshot, pipeline } = gateway.config.current();
  let ctx: GatewayContext;
  try {
    const { model, method, request } = readCall(original);
    const read = () => readJson(original, snapshot.config.server.body_limit);
    if (method === 'countTokens') return await countTokens(gateway, request, ip, model, read);
    const stream = method === 'streamGenerateContent';
    // A bad body from a caller whose credential is wrong answers 401, as for chat.
    const { raw, body } = await readBodyCredentialFirst(gateway, request, async () => {
      const raw = await read();
      refuseDeepBody(raw.value);
      return { raw, body: generateToChat(raw.value, model, stream) };
    });
    ctx = createContext({
      request, endpoint: 'generate_content', runtime: gateway.runtime, snapshot, ip, body, rawBody: raw.value, rawBodyText: raw.text,
      signal: clientSignal(original), renderer: generateRenderer,
    });
  } catch (error) {
    // Refused before the pipeline, whose log step counts every other request: counted here.
    gateway.runtime.services.earlyRefusals?.count(error, 'generate_content');
    throw error;
  }
  return pipeline.run(ctx);
}
