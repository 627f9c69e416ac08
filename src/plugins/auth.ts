/**
 * auth: every inference call needs `Authorization: Bearer <credential>` (master key, API key or
 * OAuth access token); 401 `invalid_api_key` otherwise. Loads the account's settings, applies
 * its `default_model` and `stream_by_default`, and enforces its IP allow-list and, for OAuth
 * tokens, the endpoint's scope (src/auth/route-scopes.ts).
 */
import { authenticate } from '../auth/authenticate.ts';
import { definePlugin } from '../pipeline/types.ts';
import type { Endpoint, GatewayContext } from '../pipeline/context.ts';
import { requireScope, scopeOf } from '../auth/route-scopes.ts';
import type { PlatformScope } from '../auth/scopes.ts';
import schema from '../../schemas/plugins/auth.schema.json' with { type: 'json' };

/** The OAuth scope of each inference endpoint, from the route table. */
const endpointScopes: Record<Endpoint, PlatformScope> = {
  chat: scopeOf('POST', '/api/v1/chat/completions'),
  responses: scopeOf('POST', '/api/v1/responses'),
  embeddings: scopeOf('POST', '/api/v1/embeddings'),
  messages: scopeOf('POST', '/api/v1/messages'),
  generate_content: scopeOf('POST', '/api/v1beta/models/:model'),
};

/**
 * The account's defaults for what the body leaves out: model, stream and temperature. Applied here,
 * once, as soon as the settings are known, so every later step (permission, route) sees the
 * model the call will use.
 */
function applyAccountDefaults(ctx: GatewayContext) {
  const { api } = ctx.settings;
  const raw = ctx.rawBody as Record<string, unknown>;
  if (!ctx.body.model && api.default_model) ctx.body.model = api.default_model;
  // Stream and temperature are chat settings: an embeddings body has neither.
  if (ctx.endpoint === 'embeddings') return;
  // generateContent says stream or not by its URL, not its body.
  if (raw.stream === undefined && ctx.endpoint !== 'generate_content' && api.stream_by_default && mayStream(ctx.request)) ctx.body.stream = true;
  // The chat body's (a translated body names its temperature elsewhere: generationConfig).
  if (ctx.body.temperature === undefined) ctx.body.temperature = api.default_temperature;
}

/**
 * Whether a request that leaves `stream` out may be answered with a stream: not when its Accept
 * header asks for JSON only. The official SDKs send `Accept: application/json` and leave `stream`
 * out of every non-streamed call; answering those with SSE would hand them a string of events.
 */
function mayStream(request: Request): boolean {
  const accept = request.headers.get('accept');
  if (!accept) return true;
  return !/application\/json/i.test(accept) || /text\/event-stream|\*\/\*/i.test(accept);
}

export default definePlugin({
  name: 'auth',
  schema,
  failure: 'closed',
  setup(_options, { runtime }) {
    return {
      async handle(ctx, next) {
        const { settings } = await authenticate(ctx.request, runtime, ctx.snapshot, ctx.ip, (principal) => {
          ctx.principal = principal;
          requireScope(principal, endpointScopes[ctx.endpoint]);
        });
        ctx.settings = settings;
        applyAccountDefaults(ctx);
        return next();
      },
    };
  },
});
