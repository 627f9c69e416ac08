/**
 * Console sign-in through the company's OpenID Connect provider (`console.sso`), as one more way
 * to finish the gateway's own authorization flow: the console asks /oauth/authorize with
 * `login_method=sso`, the provider sends the browser here instead of to the password form, we run
 * the authorization code flow (PKCE, state, nonce) against the company's provider with
 * openid-client, map its claims to a gateway account and finish the interaction with that login.
 * The console then gets the gateway's own tokens, exactly as after a password sign-in.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { H3Event } from 'h3';
import type Provider from 'oidc-provider';
import type { Configuration } from 'openid-client';
import { lazily } from '../../kernel/lazily.ts';
import type { ConsoleSsoConfig } from '../../config/types.ts';
import { fromAcceptLanguage } from '../../i18n/language.ts';
import { errorPage, html, HTML_HEADERS } from '../oauth/views.ts';
import { callbackFailure, exchangeFailure, type SsoFailure } from './sso-failure.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { Gateway } from '../../pipeline/gateway.ts';
import { CONSOLE_CLIENT_ID, SSO_PATH } from './client.ts';
import { ensureAccount, profileFromClaims, SsoRefusal } from './sso-accounts.ts';

export const ssoCallbackPath = `${SSO_PATH}/callback`;
const STATE_COOKIE = 'gw_console_sso';
const STATE_TTL_MS = 10 * 60_000;

/** What the provider's Interaction model offers that the narrow typings leave out. */
interface StoredInteraction {
  exp: number;
  returnTo: string;
  result?: unknown;
  save(ttl: number): Promise<unknown>;
}
type InteractionModel = { find(uid: string): Promise<StoredInteraction | undefined> };

interface PendingSignIn {
  uid: string;
  verifier: string;
  nonce: string;
}

const redirect = (location: string, cookie?: string) =>
  new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', ...(cookie ? { 'set-cookie': cookie } : {}) } });

/** openid-client, loaded with the first SSO sign-in rather than at start. */
const openidClient = lazily(() => import('openid-client'));

/** Discovery is one HTTP round trip: done once per (issuer, client) and reused. */
function discoveryCache() {
  const cache = new Map<string, Promise<Configuration>>();
  return (sso: ConsoleSsoConfig) => {
    const key = JSON.stringify([sso.issuer, sso.client_id, sso.client_secret]);
    let found = cache.get(key);
    if (!found) {
      const issuer = new URL(sso.issuer);
      // Plain http only to a provider on this machine (development, tests); anything else needs TLS.
      const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname);
      found = openidClient().then((oidc) => {
        const insecure = issuer.protocol === 'http:' && loopback ? { execute: [oidc.allowInsecureRequests] } : undefined;
        return oidc.discovery(issuer, sso.client_id, undefined, oidc.ClientSecretPost(sso.client_secret), insecure);
      });
      found.catch(() => cache.delete(key));
      cache.set(key, found);
    }
    return found;
  };
}

/** SSO pages are shown before anyone is signed in: the browser's language decides. */
const lang = (event: H3Event) => fromAcceptLanguage(event.req.headers.get('accept-language'));

function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/** Handlers for GET /console/sso/:uid (start) and GET /console/sso/callback. */
export function createSsoHandlers(providerOf: () => Promise<Provider>, gateway: Gateway, logger: Logger) {
  const { runtime } = gateway;
  const configurationFor = discoveryCache();
  const secure = runtime.baseUrl.startsWith('https:') ? '; Secure' : '';
  const redirectUri = `${runtime.baseUrl.replace(/\/$/, '')}${ssoCallbackPath}`;

  async function start(event: H3Event): Promise<Response> {
    const sso = runtime.current().config.console.sso;
    if (!sso) return html(errorPage(lang(event), 'ssoNotConfigured'), 404);
    const node = event.runtime?.node;
    if (!node?.res) return html(errorPage(lang(event), 'cannotRun'), 500);
    let details;
    try {
      details = await (await providerOf()).interactionDetails(node.req as IncomingMessage, node.res as ServerResponse);
    } catch {
      return html(errorPage(lang(event), 'ssoExpired'), 400);
    }
    if (details.uid !== event.context.params?.uid || details.params.client_id !== CONSOLE_CLIENT_ID || details.prompt.name !== 'login') {
      return html(errorPage(lang(event), 'ssoSessionMismatch'), 400);
    }
    let configuration: Configuration;
    try {
      configuration = await configurationFor(sso);
    } catch (error) {
      logger.error('sso discovery failed', { issuer: sso.issuer, error: String(error) });
      return html(errorPage(lang(event), 'ssoUnreachable'), 502);
    }
    const oidc = await openidClient();
    const state = oidc.randomState();
    const pending: PendingSignIn = { uid: details.uid, verifier: oidc.randomPKCECodeVerifier(), nonce: oidc.randomNonce() };
    await runtime.store.set(`gw:console:sso:${state}`, JSON.stringify(pending), STATE_TTL_MS);
    const target = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: sso.scopes.join(' '),
      state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    });
    // The state is bound to this browser: a link with someone else's state cannot sign them in here.
    const cookie = `${STATE_COOKIE}=${state}; Path=${SSO_PATH}; HttpOnly; SameSite=Lax; Max-Age=${STATE_TTL_MS / 1000}${secure}`;
    return redirect(target.href, cookie);
  }

  async function callback(event: H3Event): Promise<Response> {
    const sso = runtime.current().config.console.sso;
    if (!sso) return html(errorPage(lang(event), 'ssoNotConfigured'), 404);
    const url = new URL(event.req.url);
    const state = url.searchParams.get('state') ?? '';
    if (!state || cookieValue(event.req, STATE_COOKIE) !== state) {
      return html(errorPage(lang(event), 'ssoNotStarted'), 400);
    }
    const key = `gw:console:sso:${state}`;
    const raw = await runtime.store.get(key);
    await runtime.store.del(key);
    if (!raw) return html(errorPage(lang(event), 'ssoExpired'), 400);
    const pending = JSON.parse(raw) as PendingSignIn;
    const clearCookie = `${STATE_COOKIE}=; Path=${SSO_PATH}; HttpOnly; SameSite=Lax; Max-Age=0${secure}`;
    /** The page of a failed sign-in; a configuration fault is logged as an error, for the operator. */
    const failed = (failure: SsoFailure, cause?: unknown) => {
      const fields = { issuer: sso.issuer, client_id: sso.client_id, reason: failure.detail ?? null, error: cause === undefined ? undefined : cause instanceof Error ? cause.message : String(cause) };
      if (failure.operatorFault) logger.error('console sso sign-in failed: check console.sso and the client registered at the identity provider', fields);
      else logger.warn('console sso sign-in failed', fields);
      const status = failure.page === 'ssoUnreachable' ? 502 : failure.page === 'ssoRefused' ? 403 : 400;
      return new Response(errorPage(lang(event), failure.page, failure.detail), { status, headers: { ...HTML_HEADERS, 'set-cookie': clearCookie } });
    };
    // The provider's own answer (access_denied, invalid_scope...) arrives as callback parameters.
    const providerError = url.searchParams.get('error');
    if (providerError) return failed(callbackFailure(providerError, url.searchParams.get('error_description')));
    try {
      const configuration = await configurationFor(sso);
      // The redirect URI we registered, whatever host the request came through.
      const current = new URL(`${redirectUri}${url.search}`);
      const oidc = await openidClient();
      const tokens = await oidc.authorizationCodeGrant(configuration, current, {
        pkceCodeVerifier: pending.verifier,
        expectedState: state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const idClaims = tokens.claims()!;
      // Providers put profile claims in the ID token, the userinfo answer, or both.
      const userinfo = await oidc.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
      const profile = profileFromClaims({ ...idClaims, ...userinfo }, sso, runtime);
      const accountId = await ensureAccount(gateway, profile, logger);
      const interaction = await ((await providerOf()) as unknown as { Interaction: InteractionModel }).Interaction.find(pending.uid);
      if (!interaction) return html(errorPage(lang(event), 'ssoExpired'), 400);
      interaction.result = { login: { accountId } };
      await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
      logger.info('console sso sign-in', { account: accountId });
      return redirect(interaction.returnTo, clearCookie);
    } catch (error) {
      if (error instanceof SsoRefusal) return failed({ page: 'ssoRefused', detail: error.message, operatorFault: false });
      return failed(exchangeFailure(error), error);
    }
  }
  return { start, callback };
}
