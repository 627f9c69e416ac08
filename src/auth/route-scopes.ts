/**
 * The OAuth scope of every authenticated route, in one table (README "Scopes"). The server looks
 * each route up once when it mounts it and refuses to start with a route missing here, so no route
 * is ever reachable by an OAuth token without a scope check. An API key an OAuth token created
 * carries that token's scopes (`keys[].scopes`) and is held to this table exactly as the token is,
 * so a token cannot escape its scopes by minting a key; the master key and unscoped keys are not
 * limited by it. The role check (admin paths) applies to everyone.
 *
 * Why these scopes: `write:api` lets a token mint an API key, which can call models, so calling
 * models needs `write:api` too (a read-only token never spends). Admin paths reuse the scope of
 * what they manage (configuration and logs: api, accounts: user), on top of the admin role.
 */
import { forbidden, insufficientScope } from '../kernel/errors.ts';
import type { Principal } from '../pipeline/principal.ts';
import type { PlatformScope } from './scopes.ts';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** Read with `read`, change with `write`, for a `/v1/admin/<name>` resource (list, get, create, update, delete). */
function adminResource(path: string, read: PlatformScope, write: PlatformScope): Array<[string, PlatformScope]> {
  return [
    [`GET ${path}`, read],
    [`GET ${path}/:id`, read],
    [`POST ${path}`, write],
    [`PUT ${path}/:id`, write],
    [`DELETE ${path}/:id`, write],
  ];
}

/** `"<METHOD> <h3 path>"` → the scope an OAuth token needs. */
export const ROUTE_SCOPES: ReadonlyMap<string, PlatformScope> = new Map<string, PlatformScope>([
  // Inference
  ['POST /api/v1/chat/completions', 'write:api'],
  ['POST /api/v1/responses', 'write:api'],
  ['POST /api/v1/embeddings', 'write:api'],
  // The Messages API and generateContent ingresses (the Anthropic and Google SDKs)
  ['POST /api/v1/messages', 'write:api'],
  ['POST /api/v1/messages/count_tokens', 'write:api'],
  ['POST /api/v1beta/models/:model', 'write:api'],
  ['GET /api/v1/responses/:id', 'read:api'],
  ['DELETE /api/v1/responses/:id', 'write:api'],
  ['POST /api/v1/responses/:id/cancel', 'write:api'],
  ['GET /api/v1/models', 'read:api'],
  ['GET /api/v1/models/:id', 'read:api'],
  // API keys
  ['GET /v1/api-keys', 'read:api'],
  ['GET /v1/api-keys/:id', 'read:api'],
  ['POST /v1/api-keys', 'write:api'],
  ['PUT /v1/api-keys/:id', 'write:api'],
  ['DELETE /v1/api-keys/:id', 'write:api'],
  ['POST /v1/api-keys/:id/rotate', 'write:api'],
  // Statistics
  ['GET /v1/statistics/usage', 'read:api'],
  ['GET /v1/statistics/models', 'read:api'],
  ['GET /v1/statistics/cost', 'read:billing'],
  ['GET /v1/statistics/export', 'read:billing'],
  ['GET /v1/statistics/breakdown', 'read:billing'],
  // The caller's own account
  ['GET /v1/logs', 'read:api'],
  ['GET /v1/logs/:id', 'read:api'],
  ['GET /v1/settings', 'read:user'],
  ['PUT /v1/settings', 'write:user'],
  ['GET /v1/security/status', 'read:user'],
  ['POST /v1/security/send-code', 'write:user'],
  ['POST /v1/security/verify', 'write:user'],
  ['POST /v1/security/two-factor/disable', 'write:user'],
  ['POST /v1/security/recovery-codes', 'write:user'],
  ['PUT /v1/security/login-alerts', 'write:user'],
  ['DELETE /v1/security/trusted-devices/:id', 'write:user'],
  // Admin (the admin role as well)
  ...adminResource('/v1/admin/providers', 'read:api', 'write:api'),
  // A provider test spends a call upstream: write, as calling a model is.
  ['POST /v1/admin/providers/:id/test', 'write:api'],
  ['GET /v1/admin/providers/:id/health', 'read:api'],
  ...adminResource('/v1/admin/models', 'read:api', 'write:api'),
  ...adminResource('/v1/admin/groups', 'read:api', 'write:api'),
  ...adminResource('/v1/admin/guardrails', 'read:api', 'write:api'),
  ...adminResource('/v1/admin/users', 'read:user', 'write:user'),
  ['GET /v1/admin/users/:id/settings', 'read:user'],
  ['PUT /v1/admin/users/:id/settings', 'write:user'],
  ['POST /v1/admin/users/:id/two-factor/reset', 'write:user'],
  ['GET /v1/admin/logs', 'read:api'],
  ['GET /v1/admin/logs/:id', 'read:api'],
  // System
  ['GET /v1/system/status', 'read:api'],
  ['GET /v1/system/config', 'read:api'],
]);

/**
 * The scope of a route; throws (at mount time) when the table has none, so a new route cannot
 * ship unscoped.
 */
export function scopeOf(method: Method, path: string): PlatformScope {
  const scope = ROUTE_SCOPES.get(`${method} ${path}`);
  if (!scope) throw new Error(`No OAuth scope declared for ${method} ${path}: add it to src/auth/route-scopes.ts`);
  return scope;
}

/** 403 `insufficient_scope` when a scoped principal (an OAuth token, a key one created) lacks `scope`. */
export function requireScope(principal: Principal, scope: PlatformScope): void {
  if (!principal.scopes || principal.scopes.has(scope)) return;
  if (principal.kind !== 'key') throw insufficientScope(scope);
  throw forbidden(
    `This API key lacks the scope '${scope}': it holds only the scopes of the OAuth token that created it (${[...principal.scopes].join(', ')}).`,
    'insufficient_scope',
  );
}
