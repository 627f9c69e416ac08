/**
 * What every inference interface (chat, embeddings, the Messages API, generateContent) does before
 * the pipeline: read the client's body within the body limit, refuse one nested too deep, and turn
 * it into the chat-shaped request the pipeline runs on; and count in the metrics, under the
 * interface's endpoint, a request refused there (the pipeline's log step counts every other one).
 */
import { refuseDeepBody } from '../../http/json-depth.ts';
import { readJson } from '../../http/read-body.ts';
import type { Endpoint } from '../../pipeline/context.ts';
import type { InferenceHost } from '../../pipeline/gateway.ts';
import type { ChatRequest } from '../../providers/openai-types.ts';
import { readBodyCredentialFirst } from './credential-first.ts';

/** The body as sent (`raw`, and its text for the log) and as the chat request the pipeline runs on. */
export interface ClientBody {
  raw: { value: unknown; text: string };
  body: ChatRequest;
}

/**
 * Reads the JSON body of `from` (the client's request; `request` unless the interface moved the
 * credential to a copy of it, as generateContent does), up to `limit` bytes (`server.body_limit`),
 * and translates it with `toChat`, which throws a 400 for a body it refuses. A bad body from a
 * caller whose credential (read from `request`) is wrong answers 401, as for chat.
 */
export function readClientBody(
  gateway: InferenceHost,
  request: Request,
  limit: number,
  toChat: (raw: unknown) => ChatRequest,
  from: Request = request,
): Promise<ClientBody> {
  return readBodyCredentialFirst(gateway, request, async () => {
    const raw = await readJson(from, limit);
    refuseDeepBody(raw.value);
    return { raw, body: toChat(raw.value) };
  });
}

/** Runs `prepare`, the work before the pipeline; a refusal there is counted under `endpoint`, then thrown on. */
export async function beforePipeline<T>(gateway: InferenceHost, endpoint: Endpoint, prepare: () => Promise<T>): Promise<T> {
  try {
    return await prepare();
  } catch (error) {
    gateway.runtime.services.earlyRefusals?.count(error, endpoint);
    throw error;
  }
}
