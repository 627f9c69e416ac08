/**
 * Sign-in to the console through the gateway's own OAuth server: authorization code + PKCE (S256),
 * as a public client. The code's access token starts a console session (an HttpOnly cookie the
 * scripts never see; src/features/console/session.ts) shared by every tab and kept across reloads;
 * each tab then asks that session for short access tokens and keeps them in memory only, never in
 * storage. Sign-out ends the session (its grant and tokens revoked) for every tab.
 */

export interface ConsoleOptions {
  client_id: string;
  redirect_uri: string;
  scopes: string[];
  sso: { name: string } | null;
}

export interface Account {
  sub: string;
  email?: string;
  name?: string;
  role: 'admin' | 'member';
  group?: string;
}

/** Why there is no session: never signed in here, or one that ended (signed out elsewhere, revoked). */
export type SignedOutReason = 'signed_out' | 'session_revoked';

export class SignedOut extends Error {
  constructor(
    readonly reason: SignedOutReason,
    message: string,
  ) {
    super(message);
  }
}

const PENDING = 'gw-console-pending';
/** Sent with every request that uses the session cookie: a cross-site page cannot send it. */
const CONSOLE_HEADER = { 'x-gateway-console': '1' };

const base64url = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const randomString = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

let options: ConsoleOptions | null = null;

export async function loadOptions(): Promise<ConsoleOptions> {
  if (!options) {
    const response = await fetch('/console/config.json');
    if (!response.ok) throw new Error(`The gateway answered ${response.status} for the console options.`);
    options = (await response.json()) as ConsoleOptions;
  }
  return options;
}

/** This tab's access token and account, in memory only. */
let current: { token: string; expiresAt: number; account: Account } | null = null;

export const currentAccount = () => current?.account ?? null;

/** Sends the browser to /oauth/authorize; `sso` picks the company's identity provider. */
export async function signIn(method: 'password' | 'sso', returnTo = '/console/overview'): Promise<void> {
  const { client_id, redirect_uri, scopes } = await loadOptions();
  // The flow returns to the base URL's origin, where the session cookie lives: start from there.
  const origin = new URL(redirect_uri).origin;
  if (origin !== location.origin) {
    location.assign(`${origin}/console/`);
    return;
  }
  const verifier = randomString();
  const state = randomString();
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  // The PKCE verifier and state (no token) wait in this tab for the callback.
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state, returnTo }));
  const query = new URLSearchParams({
    client_id,
    redirect_uri,
    response_type: 'code',
    scope: scopes.join(' '),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    // Always ask: after a sign-out the next person at this browser must not inherit a session.
    prompt: 'login',
  });
  if (method === 'sso') query.set('login_method', 'sso');
  location.assign(`/oauth/authorize?${query}`);
}

/** Finishes the flow on /console/callback: the code's token starts the session; returns where to go next. */
export async function completeSignIn(search: string): Promise<string> {
  const params = new URLSearchParams(search);
  const raw = sessionStorage.getItem(PENDING);
  const pending = raw ? (JSON.parse(raw) as { verifier: string; state: string; returnTo: string }) : null;
  sessionStorage.removeItem(PENDING);
  if (params.get('error')) throw new Error(params.get('error_description') ?? params.get('error')!);
  if (!pending || params.get('state') !== pending.state) throw new Error('This sign-in was not started from this tab. Start again.');
  const { client_id, redirect_uri } = await loadOptions();
  const exchanged = await fetch('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: params.get('code') ?? '', redirect_uri, client_id, code_verifier: pending.verifier }),
  });
  const body = (await exchanged.json()) as Record<string, unknown>;
  if (!exchanged.ok) throw new Error(String(body.error_description ?? body.error ?? `token endpoint answered ${exchanged.status}`));
  const started = await fetch('/console/session', { method: 'POST', headers: { ...CONSOLE_HEADER, authorization: `Bearer ${String(body.access_token)}` } });
  if (!started.ok) throw new Error(`Could not start the console session (${started.status}).`);
  await refresh();
  announce('signed-in');
  return pending.returnTo.startsWith('/console/') ? pending.returnTo : '/console/overview';
}

let refreshing: Promise<string> | null = null;

/** A new access token from the session cookie; throws SignedOut when there is no session (any more). */
function refresh(): Promise<string> {
  refreshing ??= (async () => {
    try {
      const response = await fetch('/console/session/token', { method: 'POST', headers: CONSOLE_HEADER });
      if (response.status === 401) {
        const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
        current = null;
        const reason = body.error?.code === 'session_revoked' ? 'session_revoked' : 'signed_out';
        throw new SignedOut(reason, body.error?.message ?? 'You are signed out.');
      }
      if (!response.ok) throw new Error(`The gateway answered ${response.status} for a console token.`);
      const body = (await response.json()) as { access_token: string; expires_in: number; account: Account };
      const account = { ...body.account, role: body.account.role === 'admin' ? 'admin' : 'member' } as Account;
      current = { token: body.access_token, expiresAt: Date.now() + body.expires_in * 1000, account };
      return body.access_token;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** The session of this browser, if any (a reload, a new tab); null when signed out. */
export async function restoreSession(): Promise<Account | null> {
  try {
    await refresh();
    return currentAccount();
  } catch (error) {
    if (error instanceof SignedOut) return null;
    throw error;
  }
}

/** A valid access token, asked anew when about to expire (or when `force`d after a 401); throws SignedOut. */
export async function accessToken(force = false): Promise<string> {
  if (!force && current && current.expiresAt - Date.now() > 30_000) return current.token;
  return refresh();
}

/** Ends the session for every tab of this browser: grant and tokens revoked, cookie cleared. */
export async function signOut(): Promise<void> {
  current = null;
  await fetch('/console/session', { method: 'DELETE', headers: CONSOLE_HEADER }).catch(() => undefined);
  announce('signed-out');
}

/** Tabs tell each other about sign-ins and sign-outs, so none keeps working on a stale belief. */
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('gw-console') : null;
const announce = (what: 'signed-in' | 'signed-out') => channel?.postMessage(what);
export function onSessionChange(listener: (what: 'signed-in' | 'signed-out') => void): () => void {
  const handler = (event: MessageEvent) => listener(event.data as 'signed-in' | 'signed-out');
  channel?.addEventListener('message', handler);
  return () => channel?.removeEventListener('message', handler);
}
