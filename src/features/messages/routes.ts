/**
 * POST /api/v1/messages: the Messages API body read, checked and translated to chat at the edge,
 * then the same pipeline as chat (auth, permission, limits, quota, cache, routing, log), its
 * answers rendered by messagesRenderer. Everything refused before the pipeline is answered in
 * the Messages API's error shape too, with `request-id` beside `x-request-id`.
 */
import { bearerToken } from '../../auth/credentials.ts';
import { clientSignal } from '../../http/client-signal.ts';
import { renderError } from '../../http/handle.ts';
import { missingApiKey } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { createContext, type GatewayContext } from '../../pipeline/context.ts';
import type { Gateway } from '../../pipeline/gateway.ts';
import { beforePipeline, readClientBody } from '../inference/ingress.ts';
import { anthropicErrorResponse } from './errors.ts';
import { messagesRenderer } from './renderer.ts';
import { messagesToChat } from './to-chat.ts';
import { validateMessagesBody } from './validate.ts';

export const MESSAGES_PATH = '/api/v1/messages';

/** A failure outside the pipeline in the Messages API's shape; an unexpected one is logged, its message hidden. */
export const earlyError = (logger: Logger, thrown: unknown): Response => renderError(thrown, logger, (error, id) => anthropicErrorResponse(error, id, {}));

export async function handleMessages(gateway: Gateway, logger: Logger, request: Request, ip: string): Promise<Response> {
  const { snapshot, pipeline } = gateway.config.current();
  let ctx: GatewayContext;
  try {
    ctx = await beforePipeline(gateway, 'messages', async () => {
      // Refuse anonymous calls before reading a body we would throw away.
      if (!bearerToken(request)) throw missingApiKey();
      const toChat = (raw: unknown) => messagesToChat(validateMessagesBody(raw), request.headers);
      const { raw, body } = await readClientBody(gateway, request, snapshot.config.server.body_limit, toChat);
      return createContext({
        request, endpoint: 'messages', runtime: gateway.runtime, snapshot, ip, body, rawBody: raw.value, rawBodyText: raw.text,
        signal: clientSignal(request), renderer: messagesRenderer,
      });
    });
  } catch (error) {
    return earlyError(logger, error);
  }
  // Anthropic's clients read the request id from this header.
  ctx.responseHeaders.set('request-id', ctx.id);
  try {
    return await pipeline.run(ctx);
  } catch (error) {
    return earlyError(logger, error);
  }
}
