/**
 * The console's signed-in session, shared by every tab and surviving a reload, with no token where
 * a script can read it at rest: an HttpOnly, SameSite=Strict cookie (Secure over https, path
 * /console, so it is never sent to the API) holds a random session id; the state store keeps, under
 * its SHA-256, only which OAuth grant and account the session is. A tab asks for a short-lived
 * access token for that grant (kept in the tab's memory only) and uses it as any API client does.
 *
 * Requests that act on the cookie carry `X-Gateway-Console: 1`, which a cross-site form or link
 * cannot send (a cross-origin script would need a CORS preflight this route never grants), and a
 * foreign Origin is refused: SameSite aside, a page elsewhere cannot mint tokens nor sign out.
 * Sign-out, a deleted account and a revoked grant (a token revocation of the grant, another tab's
 * sign-out) end the session everywhere: the next token request answers 401 `session_revoked`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type Provider from 'oidc-provider';
import { GatewayError } from '../../kernel/errors.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { Logger } from '../../pipeline/types.ts';
import { issuedBeforeAccount } from '../oauth/validity.ts';
import { CONSOLE_CLIENT_ID, CONSOLE_PATH, CONSOLE_SCOPES } from './client.ts';

export const SESSION_COOKIE = 'gw_console_session';
export const CONSOLE_HEADER = 'x-gateway-console';
/** As long as the console's grant lives (provider.ts ttl.Grant): the session cannot outlive it. */
const SESSION_TTL_S = 14 * 24 * 3600;
/** Minted access tokens are short: a tab asks again (a revoked session then says so at once). */
const TOKEN_TTL_S = 15 * 60;

interface StoredSession {
  grantId: string;
  accountId: string;
  /** When the sign-in's first token was issued (epoch s): a newer account with the same id refuses it. */
  iat: number;
}

/** The parts of oidc-provider's models used here that its narrow typings leave out. */
interface TokenModels {
  AccessToken: {
    new (properties: Record<string, unknown>): { save(): Promise<string> };
    find(token: string): Promise<{ accountId: string; clientId: string; grantId?: string; iat?: number; isExpired?: boolean } | undefined>;
    revokeByGrantId(grantId: string): Promise<void>;
  };
  Grant: { find(id: string): Promise<{ accountId?: string; clientId?: string; destroy(): Promise<void> } | undefined> };
  Client: { find(id: string): Promise<unknown> };
}

const sessionKey = (id: string) => `gw:console:session:${createHash('sha256').update(id).digest('hex')}`;

const signedOut = (message: string, code: string, clearCookie: string) =>
  new GatewayError(401, 'authentication_error', message, { code, headers: { 'set-cookie': clearCookie } });

function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const json = (body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });

/** Handlers for POST /console/session (start), POST /console/session/token and DELETE /console/session. */
export function createConsoleSessions(providerOf: () => Promise<Provider>, runtime: Runtime, logger: Logger) {
  const origin = new URL(runtime.baseUrl).origin;
  const secure = runtime.baseUrl.startsWith('https:') ? '; Secure' : '';
  const cookie = (value: string, maxAge: number) => `${SESSION_COOKIE}=${value}; Path=${CONSOLE_PATH}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`;
  const clearCookie = cookie('', 0);
  const models = async () => (await providerOf()) as unknown as TokenModels;

  /** The console's own request from the gateway's origin, or a 403. */
  function assertConsoleRequest(request: Request): void {
    const sentOrigin = request.headers.get('origin');
    if (request.headers.get(CONSOLE_HEADER) !== '1' || (sentOrigin !== null && sentOrigin !== origin)) {
      throw new GatewayError(403, 'permission_error', `Only the console may use its session: send ${CONSOLE_HEADER}: 1 from ${origin}.`, { code: 'console_only' });
    }
  }

  async function stored(request: Request): Promise<{ id: string; session: StoredSession } | null> {
    const id = cookieValue(request, SESSION_COOKIE);
    if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
    const raw = await runtime.store.get(sessionKey(id));
    return raw ? { id, session: JSON.parse(raw) as StoredSession } : null;
  }

  /** Starts a session from the access token the sign-in's code exchange gave (Authorization: Bearer). */
  async function start(request: Request): Promise<Response> {
    assertConsoleRequest(request);
    const token = /^Bearer ([A-Za-z0-9_-]{20,128})$/.exec(request.headers.get('authorization') ?? '')?.[1];
    const found = token ? await (await models()).AccessToken.find(token) : undefined;
    if (!found || found.isExpired || found.clientId !== CONSOLE_CLIENT_ID || !found.grantId) {
      throw new GatewayError(401, 'authentication_error', 'Send the access token of a console sign-in to start a session.', { code: 'invalid_api_key' });
    }
    const id = randomBytes(32).toString('base64url');
    const session: StoredSession = { grantId: found.grantId, accountId: found.accountId, iat: found.iat ?? Math.floor(Date.now() / 1000) };
    await runtime.store.set(sessionKey(id), JSON.stringify(session), SESSION_TTL_S * 1000);
    return new Response(null, { status: 204, headers: { 'set-cookie': cookie(id, SESSION_TTL_S), 'cache-control': 'no-store' } });
  }

  /** A fresh access token for the session's grant, with the account's claims; 401 once it is over. */
  async function token(request: Request): Promise<Response> {
    assertConsoleRequest(request);
    const found = await stored(request);
    if (!found) throw signedOut('You are not signed in to the console.', 'signed_out', clearCookie);
    const { session } = found;
    const { AccessToken, Grant, Client } = await models();
    const grant = await Grant.find(session.grantId);
    const account = runtime.current().accounts.get(session.accountId);
    if (!grant || grant.accountId !== session.accountId || !account || issuedBeforeAccount(account, session.iat)) {
      await runtime.store.del(sessionKey(found.id));
      throw signedOut('Your console session was ended (signed out elsewhere, revoked, or the account changed). Sign in again.', 'session_revoked', clearCookie);
    }
    const client = await Client.find(CONSOLE_CLIENT_ID);
    const minted = new AccessToken({ accountId: session.accountId, client, grantId: session.grantId, scope: CONSOLE_SCOPES.join(' '), gty: 'refresh_token', expiresIn: TOKEN_TTL_S });
    const accessToken = await minted.save();
    const claims = { sub: account.id, email: account.email, name: account.name, role: account.role, group: account.group };
    return json({ access_token: accessToken, token_type: 'Bearer', expires_in: TOKEN_TTL_S, account: claims });
  }

  /** Signs out: the grant and every token of it revoked, the session forgotten, the cookie cleared. */
  async function end(request: Request): Promise<Response> {
    assertConsoleRequest(request);
    const found = await stored(request);
    if (found) {
      await runtime.store.del(sessionKey(found.id));
      const { AccessToken, Grant } = await models();
      await AccessToken.revokeByGrantId(found.session.grantId);
      await (await Grant.find(found.session.grantId))?.destroy();
      logger.info('console sign-out', { account: found.session.accountId });
    }
    return new Response(null, { status: 204, headers: { 'set-cookie': clearCookie, 'cache-control': 'no-store' } });
  }

  return { start, token, end };
}
