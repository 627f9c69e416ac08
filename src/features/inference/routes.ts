/**
 * The inference endpoints: read and validate the body once, build the context, and run the
 * current pipeline. The responses interface translates to the chat shape before the pipeline
 * (src/features/responses).
 */
import { precompiledValidators, bodyValidator } from './validate-body.ts';
import type { InferenceHost } from '../../pipeline/gateway.ts';
import { createContext, type Endpoint } from '../../pipeline/context.ts';
import { missingApiKey } from '../../kernel/errors.ts';
import type { ChatRequest } from '../../providers/openai-types.ts';
import { beforePipeline, readClientBody } from './ingress.ts';
import { clientSignal } from '../../http/client-signal.ts';
import type { EmbeddingsRequest } from '../../providers/embeddings-types.ts';
import { assertEmbeddingsInput } from './embeddings-input.ts';

export const validateChatBody = bodyValidator<ChatRequest>(precompiledValidators.chat);

/** Turns a validated client body into the chat-shaped request the pipeline runs on. */
export type BodyAdapter = (body: unknown) => ChatRequest;

export async function handleInference(gateway: InferenceHost, request: Request, ip: string, endpoint: Endpoint, toChat: BodyAdapter): Promise<Response> {
  const { snapshot, pipeline } = gateway.config.current();
  const ctx = await beforePipeline(gateway, endpoint, async () => {
    // Refuse anonymous calls before reading a body we would throw away.
    if (!request.headers.get('authorization')) throw missingApiKey();
    const { raw, body } = await readClientBody(gateway, request, snapshot.config.server.body_limit, toChat);
    return createContext({
      request, endpoint, runtime: gateway.runtime, snapshot, ip, body, rawBody: raw.value, rawBodyText: raw.text, signal: clientSignal(request),
    });
  });
  return pipeline.run(ctx);
}

// A shallow copy (Object.assign: see routing/call.ts): the pipeline sets top-level defaults,
// while the log keeps the body as sent.
const validateEmbeddingsBody = bodyValidator<EmbeddingsRequest>(precompiledValidators.embeddings);

/**
 * The embeddings body runs through the same pipeline as chat: the steps read `model`,
 * `fallbacks` and `user` alike; the route and upstream steps take the embeddings path.
 */
export const embeddingsBody: BodyAdapter = (raw) => {
  if (typeof raw === 'object' && raw !== null) assertEmbeddingsInput((raw as { input?: unknown }).input);
  return Object.assign({}, validateEmbeddingsBody(raw)) as unknown as ChatRequest;
};

export const chatBody: BodyAdapter = (raw) => Object.assign({}, validateChatBody(raw));
