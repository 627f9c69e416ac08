/**
 * POST /api/v1/messages: the Messages API body read, checked and translated to chat at the edge,
 * then the same pipeline as chat (auth, permission, limits, quota, cache, routing, log), its
 * answers rendered by messagesRenderer. Everything refused before the pipeline is answered in
 * the Messages API's error shape too, with `request-id` beside `x-request-id`.
 */
import { bearerToken } from '../../auth/credentials.ts';
import { clientSignal } from '../../http/client-signal.ts';
import { refuseDeepBody } from '../../http/json-depth.ts';
import { readJson } from '../../http/read-body.ts';
import { GatewayError, missingApiKey, toGatewayError } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { createRequestId } from '../../kernel/request-id.ts';
import { createContext, type GatewayContext } from '../../pipeline/context.ts';
import type { Gateway } from '../../pipeline/gateway.ts';
import { readBodyCredentialFirst } from '../inference/credential-first.ts';
import { anthropicErrorResponse } from './errors.ts';
import { messagesRenderer } from './renderer.ts';
import { messagesToChat } from './to-chat.ts';
import { validateMessagesBody } from './validate.ts';

export const MESSAGES_PATH = '/api/v1/messages';

/** A failure outside the pipeline in the Messages API's shape; an unexpected one is logged, its message hidden. */
export function earlyError(gateway: Gateway, logger: Logger, thrown: unknown): Response {
  const id = createRequestId();
  if (!GatewayError.is(thrown)) logger.error('unhandled error', { request: id, error: thrown instanceof Error ? thrown.stack : String(thrown) });
  return anthropicErrorResponse(toGatewayError(thrown), id, {});
}

export async function handleMessages(gateway: Gateway, logger: Logger, request: Request, ip: string): Promise<Response> {
  const { snapshot, pipeline } = gateway.config.current();
  let ctx: GatewayContext;
  try {
    // Refuse anonymous calls before reading a body we would throw away.
    if (!bearerToken(request)) throw missingApiKey();
    const { raw, body } = await readBodyCredentialFirst(gateway, request, async () => {
      const raw = await readJson(request, snapshot.config.server.body_limit);
      refuseDeepBody(raw.value);
      return { raw, body: messagesToChat(validateMessagesBody(raw.value), request.headers) };
    });
    ctx = createContext({
      request, endpoint: 'messages', runtime: gateway.runtime, snapshot, ip, body, rawBody: raw.value, rawBodyText: raw.text,
      signal: clientSignal(request), renderer: messagesRenderer,
    });
  } catch (error) {
    // Refused before the pipeline, whose log step counts every other request: counted here.
    gateway.runtime.services.earlyRefusals?.count(error, 'messages');
    return earlyError(gateway, logger, error);
  }
  // Anthropic's clients read the request id from this header.
  ctx.responseHeaders.set('request-id', ctx.id);
  try {
    return await pipeline.run(ctx);
  } catch (error) {
    return earlyError(gateway, logger, error);
  }
}
