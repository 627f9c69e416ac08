/**
 * POST /api/v1/messages/count_tokens: `{"input_tokens": N}` for a Messages API request. A model
 * served by a Messages-API upstream is asked (its own count, the body passed on with only the
 * model renamed, its answer or error passed back); any other gets the gateway's estimate, the
 * one model fit uses (src/routing/fit.ts). The caller must be allowed the model, as on inference.
 */
import { scopeOf } from '../../auth/route-scopes.ts';
import { bearerToken } from '../../auth/credentials.ts';
import { refuseDeepBody } from '../../http/json-depth.ts';
import { readJson } from '../../http/read-body.ts';
import { GatewayError, missingApiKey, modelNotFound, upstreamUnavailable } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';
import { createRequestId } from '../../kernel/request-id.ts';
import type { Gateway } from '../../pipeline/gateway.ts';
import type { Snapshot } from '../../config/snapshot.ts';
import { ANTHROPIC_VERSION } from '../../providers/anthropic.ts';
import { jsonHeaders, trimSlash } from '../../providers/shared.ts';
import type { Target } from '../../providers/types.ts';
import { estimatePrompt } from '../../routing/fit.ts';
import { resolveModel } from '../../routing/resolve.ts';
import { readBodyCredentialFirst } from '../inference/credential-first.ts';
import { askUpstreamCount, authorizeCount } from '../inference/token-count.ts';
import { earlyError } from './routes.ts';
import { messagesToChat } from './to-chat.ts';
import { validateMessagesBody } from './validate.ts';

export const COUNT_TOKENS_PATH = '/api/v1/messages/count_tokens';
const COUNT_SCOPE = scopeOf('POST', COUNT_TOKENS_PATH);

export async function handleCountTokens(gateway: Gateway, logger: Logger, request: Request, ip: string): Promise<Response> {
  try {
    if (!bearerToken(request)) throw missingApiKey();
    const snapshot = gateway.config.current().snapshot;
    const raw = await readBodyCredentialFirst(gateway, request, async () => {
      const read = await readJson(request, snapshot.config.server.body_limit);
      refuseDeepBody(read.value);
      return validateMessagesBody(read.value, { countOnly: true });
    });
    await authorizeCount(gateway, snapshot, request, ip, COUNT_SCOPE, raw.model);
    const target = resolveModel(snapshot, raw.model)[0];
    if (!target) throw modelNotFound(raw.model);
    const id = createRequestId();
    const headers = { 'content-type': 'application/json', 'request-id': id, 'x-request-id': id };
    if (target.provider.type === 'vendor_b') return await upstreamCount(gateway, snapshot, target, raw, request.headers, headers);
    const input_tokens = estimatePrompt(messagesToChat(raw, request.headers));
    return new Response(JSON.stringify({ input_tokens }), { status: 200, headers });
  } catch (error) {
    return earlyError(logger, error);
  }
}

/** The Messages-API upstream's own count: its answer, success or error, as it came. */
async function upstreamCount(
  gateway: Gateway,
  snapshot: Snapshot,
  target: Target,
  raw: Record<string, unknown>,
  client: Headers,
  headers: Record<string, string>,
): Promise<Response> {
  const sent = jsonHeaders(target, { 'x-api-key': target.provider.api_key ?? '' });
  sent['anthropic-version'] = client.get('anthropic-version') ?? ANTHROPIC_VERSION;
  const beta = client.get('anthropic-beta');
  if (beta) sent['anthropic-beta'] = beta;
  const body = Object.assign({}, raw, { model: target.upstreamModel });
  delete body.fallbacks;
  let reply: { status: number; text: string };
  try {
    reply = await askUpstreamCount(gateway, snapshot, target, {
      url: `${trimSlash(target.provider.endpoint)}/v1/messages/count_tokens`,
      headers: sent,
      body: JSON.stringify(body),
    });
  } catch (error) {
    if (GatewayError.is(error)) throw error;
    throw upstreamUnavailable('The upstream could not be reached to count the tokens.', error);
  }
  // The upstream refusing the gateway's key is the gateway's failure, not the client's.
  if (reply.status === 401 || reply.status === 403) throw upstreamUnavailable(`The upstream refused the gateway's credential (HTTP ${reply.status}).`);
  return new Response(reply.text, { status: reply.status, headers });
}
