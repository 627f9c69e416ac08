/**
 * Builds the OAuth 2.0 authorization server (oidc-provider) on first use: issuer = the gateway's
 * base URL, clients from `oauth.clients[]`, state in the gateway's StateStore, the keys in force
 * (keys.ts, key-sync.ts). Clients and issuer are startup-only: a reload does not change them,
 * except that a client removed from gateway.yaml stops counting at once (validity.ts). The keys
 * change only when instances on one Redis converge on one set: a new provider is built then.
 */
import type Provider from 'oidc-provider';
import type { Client, Configuration } from 'oidc-provider';
import type { OAuthClientConfig } from '../../config/types.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { createOidcAdapterFactory } from '../../store/oidc-adapter.ts';
import type { OAuthKeys } from './keys.ts';
import { sessionGrant, type FirstPartyClient, type GrantContext } from './first-party.ts';
import { SUPPORTED_SCOPES } from '../../auth/scopes.ts';
import { pinToIssuer } from './public-origin.ts';
import { clientBasedCors, importOidcProvider, renderOAuthError } from './provider-output.ts';
import { clientDeclared, issuedBeforeAccount } from './validity.ts';
import { accountClaims, CLAIMS_BY_SCOPE } from './claims.ts';
import { createSecurityState } from '../security/state.ts';

/** Every OAuth endpoint lives under /oauth (CONTRACT "OAuth"); discovery stays at the issuer root. */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  revocation: '/oauth/token/revocation',
  introspection: '/oauth/token/introspection',
  end_session: '/oauth/session/end',
  pushed_authorization_request: '/oauth/par',
  registration: '/oauth/register',
  code_verification: '/oauth/device',
  device_authorization: '/oauth/device/auth',
  backchannel_authentication: '/oauth/backchannel',
  challenge: '/oauth/challenge',
  credential: '/oauth/credential',
};

export const interactionPath = (uid: string) => `/oauth/interaction/${uid}`;

export const DISCOVERY_PATH = '/.well-known/openid-configuration';

/**
 * Discovery changes only with a restart (issuer, clients), so caches may keep it a while; the keys
 * less long, so verifiers see new ones soon after a restart or a convergence that changed them.
 */
const CACHE_CONTROL = { [DISCOVERY_PATH]: 'public, max-age=3600', [OAUTH_ROUTES.jwks]: 'public, max-age=600' };

/** What findAccount reads of oidc-provider's context: the client and the browser session, when there are. */
interface AccountLookupContext {
  oidc?: { client?: { clientId: string }; session?: { loginTs?: number } };
}

/** What the authorization check reads of oidc-provider's context: the request's own parameters. */
interface AuthorizationContext {
  method: string;
  query?: Record<string, unknown>;
  oidc: { body?: Record<string, unknown> };
}

/** What findAccount is given about the token or code being used (a refresh token keeps its first issue time in iiat). */
interface IssuedToken {
  iat?: number;
  iiat?: number;
}

const HOUR = 3600;
const DAY = 24 * HOUR;

/** Maps a gateway.yaml client to oidc-provider client metadata. */
export function toClientMetadata(client: OAuthClientConfig, logger: Logger): Record<string, unknown> {
  const unknown = client.scopes.filter((scope) => !SUPPORTED_SCOPES.includes(scope));
  if (unknown.length) logger.warn('oauth client lists unknown scopes; ignored', { client_id: client.client_id, scopes: unknown });
  const scopes = client.scopes.filter((scope) => SUPPORTED_SCOPES.includes(scope));
  return {
    client_id: client.client_id,
    client_secret: client.client_secret,
    redirect_uris: client.redirect_uris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    // The provider accepts client_secret_post as well for a client registered with _basic.
    token_endpoint_auth_method: 'client_secret_basic',
    // openid is always allowed (it only adds an ID token); the rest is the client's allow-list.
    scope: [...new Set(['openid', ...scopes])].join(' '),
  };
}

/**
 * Creates the provider for the runtime's current config.
 * @example const provider = await createOAuthProvider(gateway.runtime, logger, keys);
 */
export async function createOAuthProvider(runtime: Runtime, logger: Logger, keys: OAuthKeys, firstParty: readonly FirstPartyClient[] = []): Promise<Provider> {
  const { config } = runtime.current();
  // Loaded here, not at start: oidc-provider and its Koa app are only paid for once used.
  const { default: OidcProvider, errors } = await importOidcProvider(logger);
  const builtIn = new Set(firstParty.map((client) => client.clientId));
  const security = createSecurityState(runtime.store);

  /**
   * Runs on every authorization request once its client and redirect_uri are checked (so what it
   * throws goes back to the client as `error=`). oidc-provider checks only the scopes it knows
   * against the client's list and silently drops the others (`write:billing`, typos), which would
   * hand out a narrower token than asked, or a code that no token comes of: refused instead. By
   * now its `scope` parameter is cut down to the known scopes, so the check reads the scope as the
   * request sent it (query or form, as the provider assembled it). A client removed from
   * gateway.yaml since start is refused without a redirect.
   */
  const checkAuthorization = (ctx: AuthorizationContext, scope: string | undefined, client: Client) => {
    if (!clientDeclared(runtime.current(), client.clientId, builtIn)) {
      throw Object.assign(new errors.InvalidClient('client is no longer registered'), { allow_redirect: false });
    }
    const sent = (ctx.method === 'POST' ? ctx.oidc.body : ctx.query)?.scope;
    const allowed = new Set(client.scope ? client.scope.split(' ') : SUPPORTED_SCOPES);
    const refused = (typeof sent === 'string' ? sent : (scope ?? '')).split(' ').filter((asked) => asked && !allowed.has(asked));
    if (refused.length) throw new errors.InvalidScope('requested scope is not allowed', refused.join(' '));
  };

  const configuration: Configuration = {
    adapter: createOidcAdapterFactory(runtime.store),
    // Built-in first-party clients (the console) beside the ones gateway.yaml declares.
    clients: [...config.oauth.clients.map((client) => toClientMetadata(client, logger)), ...firstParty.map((client) => client.metadata(runtime.baseUrl))],
    scopes: SUPPORTED_SCOPES,
    // The standard OIDC scopes and claims, plus role and group (claims.ts).
    claims: CLAIMS_BY_SCOPE,
    // Parameters the provider keeps for the first-party clients, and the check above (on `scope`).
    extraParams: {
      ...Object.fromEntries(firstParty.flatMap((client) => client.authorizeParams ?? []).map((param) => [param, null])),
      scope: checkAuthorization,
    },
    jwks: keys.jwks,
    cookies: { keys: keys.cookieKeys },
    routes: OAUTH_ROUTES,
    // Our error page and log line, not the provider's page and console notice (provider-output.ts).
    renderError: renderOAuthError(logger),
    clientBasedCORS: clientBasedCors,
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string; params: Record<string, unknown> }) =>
        firstParty.map((client) => client.interactionUrl?.(interaction)).find(Boolean) ?? interactionPath(interaction.uid),
    },
    loadExistingGrant: (ctx: GrantContext) => {
      const own = firstParty.find((client) => client.clientId === ctx.oidc.client?.clientId)?.loadExistingGrant;
      return own ? own(ctx) : sessionGrant(ctx);
    },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      resourceIndicators: { enabled: false },
      rpInitiatedLogout: { enabled: false },
    },
    // Confidential clients may use PKCE (S256) but need not; public clients (none) must.
    pkce: { required: (_ctx: unknown, client: Client) => client.clientAuthMethod === 'none' },
    // CONTRACT: the code exchange always returns a refresh token, without offline_access...
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    // ...which lives on its own, not tied to the browser session of the consent.
    expiresWithSession: async () => false,
    // ...and rotates on every use: the old one is then refused (reuse revokes the grant).
    rotateRefreshToken: () => true,
    // Called for every code exchange, refresh, userinfo and signed-in session: what no longer
    // counts (validity.ts) finds no account, so the provider refuses it (invalid_grant, invalid_token,
    // or the sign-in form again).
    findAccount: async (ctx: AccountLookupContext, sub: string, token?: IssuedToken) => {
      const snapshot = runtime.current();
      const account = snapshot.accounts.get(sub);
      if (!account) return undefined;
      const clientId = ctx.oidc?.client?.clientId;
      if (clientId && !clientDeclared(snapshot, clientId, builtIn)) return undefined;
      if (issuedBeforeAccount(account, token ? (token.iiat ?? token.iat) : ctx.oidc?.session?.loginTs)) return undefined;
      return { accountId: sub, claims: async () => accountClaims(account, await security.read(sub)) };
    },
    ttl: {
      AccessToken: HOUR,
      AuthorizationCode: 600,
      IdToken: HOUR,
      Interaction: HOUR,
      RefreshToken: 14 * DAY,
      Session: 14 * DAY,
      Grant: 14 * DAY,
    },
  };
  const provider = new OidcProvider(runtime.baseUrl, configuration);
  // Its URLs come from the issuer, never from the request (so no proxy headers are needed either).
  pinToIssuer(provider, CACHE_CONTROL);
  provider.on('server_error', (_ctx: unknown, error: Error) => logger.error('oauth server error', { error: error.stack ?? String(error) }));
  return provider;
}
