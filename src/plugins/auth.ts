/**
 * auth: every inference call needs `Authorization: Bearer <credential>` (master key, API key or
 * OAuth access token); 401 `invalid_api_key` otherwise. Loads the account's settings, applies
 * its `default_model` and `stream_by_default`, and enforces its IP allow-list and, for OAuth
 * tokens, the endpoint's scope (src/auth/route-scopes.ts).
 */
import { bearerToken, resolveCredential } from '../auth/credentials.ts';
import { enforceIpAllowList, loadSettings } from '../auth/account-policy.ts';
import { invalidApiKey, missingApiKey } from '../pipeline/errors.ts';
import { definePlugin } from '../pipeline/types.ts';
import type { Endpoint } from '../pipeline/context.ts';
import { requireScope, scopeOf } from '../auth/route-scopes.ts';
import type { PlatformScope } from '../oauth/scopes.ts';
import schema from '../../schemas/plugins/auth.schema.json' with { type: 'json' };

/** The OAuth scope of each inference endpoint, from the route table. */
const endpointScopes: Record<Endpoint, PlatformScope> = {
  chat: scopeOf('POST', '/api/v1/chat/completions'),
  responses: scopeOf('POST', '/api/v1/responses'),
  embeddings: scopeOf('POST', '/api/v1/embeddings'),
};

export default definePlugin({
  name: 'auth',
  schema,
  failure: 'closed',
  setup(_options, { runtime }) {
    return {
      async handle(ctx, next) {
        const token = bearerToken(ctx.request);
        if (!token) throw missingApiKey();
        const principal = await resolveCredential(token, runtime, ctx.snapshot);
        if (!principal) throw invalidApiKey();
        ctx.principal = principal;
        requireScope(principal, endpointScopes[ctx.endpoint]);
        ctx.settings = await loadSettings(runtime, ctx.snapshot, principal);
        enforceIpAllowList(principal, ctx.settings, ctx.ip);
        const raw = ctx.rawBody as Record<string, unknown>;
        if (!ctx.body.model && ctx.settings.api.default_model) {
          ctx.body.model = ctx.settings.api.default_model;
          ctx.requestedModels.unshift(ctx.body.model);
        }
        if (raw.stream === undefined && ctx.settings.api.stream_by_default) ctx.body.stream = true;
        if (raw.temperature === undefined) ctx.body.temperature = ctx.settings.api.default_temperature;
        return next();
      },
    };
  },
});
