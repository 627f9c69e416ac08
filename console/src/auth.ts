/**
 * Sign-in to the console through the gateway's own OAuth server: authorization code + PKCE (S256),
 * as a public client. Tokens live in sessionStorage (this tab only, gone when it closes); the
 * page's CSP allows no script from anywhere else. Sign-out revokes both tokens at the server.
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

interface Tokens {
  access_token: string;
  refresh_token?: string;
  /** ms since the epoch */
  expires_at: number;
}

const TOKENS = 'gw-console-tokens';
const ACCOUNT = 'gw-console-account';
const PENDING = 'gw-console-pending';

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

const read = <T>(key: string): T | null => {
  const raw = sessionStorage.getItem(key);
  return raw ? (JSON.parse(raw) as T) : null;
};

export const currentAccount = () => read<Account>(ACCOUNT);

/** Sends the browser to /oauth/authorize; `sso` picks the company's identity provider. */
export async function signIn(method: 'password' | 'sso', returnTo = '/console/overview'): Promise<void> {
  const { client_id, redirect_uri, scopes } = await loadOptions();
  // The flow returns to the base URL's origin, and sessionStorage is per origin: start from there.
  const origin = new URL(redirect_uri).origin;
  if (origin !== location.origin) {
    location.assign(`${origin}/console/`);
    return;
  }
  const verifier = randomString();
  const state = randomString();
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
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

async function tokenRequest(form: Record<string, string>): Promise<Tokens> {
  const response = await fetch('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(String(body.error_description ?? body.error ?? `token endpoint answered ${response.status}`));
  return {
    access_token: String(body.access_token),
    refresh_token: body.refresh_token ? String(body.refresh_token) : undefined,
    expires_at: Date.now() + Number(body.expires_in ?? 3600) * 1000,
  };
}

/** Finishes the flow on /console/callback; returns where to go next. */
export async function completeSignIn(search: string): Promise<string> {
  const params = new URLSearchParams(search);
  const pending = read<{ verifier: string; state: string; returnTo: string }>(PENDING);
  sessionStorage.removeItem(PENDING);
  if (params.get('error')) throw new Error(params.get('error_description') ?? params.get('error')!);
  if (!pending || params.get('state') !== pending.state) throw new Error('This sign-in was not started from this tab. Start again.');
  const { client_id, redirect_uri } = await loadOptions();
  const tokens = await tokenRequest({ grant_type: 'authorization_code', code: params.get('code') ?? '', redirect_uri, client_id, code_verifier: pending.verifier });
  sessionStorage.setItem(TOKENS, JSON.stringify(tokens));
  const info = await fetch('/oauth/userinfo', { headers: { authorization: `Bearer ${tokens.access_token}` } });
  if (!info.ok) throw new Error(`Could not read your account (${info.status}).`);
  const claims = (await info.json()) as Account;
  sessionStorage.setItem(ACCOUNT, JSON.stringify({ ...claims, role: claims.role === 'admin' ? 'admin' : 'member' }));
  return pending.returnTo.startsWith('/console/') ? pending.returnTo : '/console/overview';
}

let refreshing: Promise<string | null> | null = null;

/** A valid access token, refreshed (refresh tokens rotate) when it is about to expire; null if signed out. */
export async function accessToken(force = false): Promise<string | null> {
  const tokens = read<Tokens>(TOKENS);
  if (!tokens) return null;
  if (!force && tokens.expires_at - Date.now() > 30_000) return tokens.access_token;
  if (!tokens.refresh_token) return null;
  refreshing ??= (async () => {
    try {
      const { client_id } = await loadOptions();
      const next = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id });
      sessionStorage.setItem(TOKENS, JSON.stringify(next));
      return next.access_token;
    } catch {
      forget();
      return null;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

function forget() {
  sessionStorage.removeItem(TOKENS);
  sessionStorage.removeItem(ACCOUNT);
}

/** Revokes the refresh token (and with it the grant) and the access token, then forgets them. */
export async function signOut(): Promise<void> {
  const tokens = read<Tokens>(TOKENS);
  forget();
  if (!tokens) return;
  const { client_id } = await loadOptions();
  const revoke = (token: string, hint: string) =>
    fetch('/oauth/token/revocation', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, token_type_hint: hint, client_id }),
    }).catch(() => undefined);
  await Promise.all([tokens.refresh_token ? revoke(tokens.refresh_token, 'refresh_token') : null, revoke(tokens.access_token, 'access_token')]);
}
