/**
 * Drives the OAuth authorization-code flow from a test like a browser would: a cookie jar, manual
 * redirects, real form posts through the login and consent pages, then the token endpoint.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { freePort } from './_process.ts';
import { startTestGateway, type TestGateway } from './_setup.ts';

export const REDIRECT = 'http://127.0.0.1:5999/callback';
export const DASHBOARD = { id: 'dashboard', secret: 'dashboard-secret-0123456789' };
export const READER = { id: 'reader', secret: 'reader-secret-0123456789' };
export const ALICE = { email: 'alice@example.com', password: 'correct horse battery' };
export const ROOT = { email: 'root@example.com', password: 'admin pass phrase' };

/** Start a gateway whose base URL (the issuer) is its real address. */
export async function startOAuthGateway(env: Record<string, string> = {}): Promise<TestGateway & { base: string }> {
  const port = await freePort();
  const base = env.GATEWAY_BASE_URL ?? `http://127.0.0.1:${port}`;
  const gw = await startTestGateway('oauth.yaml', { PORT: String(port), GATEWAY_BASE_URL: base, ...env });
  return Object.assign(gw, { base });
}

/** A minimal browser: a cookie jar keyed by name (the newest value wins), manual redirects. */
export class Browser {
  readonly cookies = new Map<string, string>();
  /** Sent with every request (e.g. `x-forwarded-for` to act from an address, `user-agent`). */
  readonly headers: Record<string, string>;

  constructor(headers: Record<string, string> = {}) {
    this.headers = headers;
  }
  /** Pages seen on the way, for assertions. */
  readonly pages: Array<{ url: string; status: number; body: string }> = [];

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers({ ...this.headers, ...Object.fromEntries(new Headers(init.headers)) });
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (!value || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  postForm(url: string, form: Record<string, string>) {
    return this.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }
}

export interface FlowResult {
  /** The final redirect to the client, or null when the flow stopped on a page. */
  callback: URL | null;
  browser: Browser;
  last: { status: number; body: string; url: string };
}

/**
 * Drive the authorization flow from `authorizeUrl`: follow redirects, fill the login form with
 * `user` and approve the consent form, until the user agent is sent to the redirect URI.
 */
export async function authorize(authorizeUrl: string, user: { email: string; password: string }, browser = new Browser()): Promise<FlowResult> {
  let url = authorizeUrl;
  let response = await browser.request(url);
  for (let step = 0; step < 12; step++) {
    if (response.status >= 300 && response.status < 400) {
      const location = new URL(response.headers.get('location')!, url);
      if (location.href.startsWith(REDIRECT)) return { callback: location, browser, last: { status: response.status, body: '', url } };
      url = location.href;
      response = await browser.request(url);
      continue;
    }
    const body = await response.text();
    browser.pages.push({ url, status: response.status, body });
    if (response.status === 200 && /name="password"/.test(body)) {
      response = await browser.postForm(url, { action: 'login', email: user.email, password: user.password });
    } else if (response.status === 200 && /value="consent"/.test(body)) {
      response = await browser.postForm(url, { action: 'consent' });
    } else {
      return { callback: null, browser, last: { status: response.status, body, url } };
    }
  }
  throw new Error('authorization flow did not finish');
}

export function authorizeUrl(base: string, params: Record<string, string>): string {
  const query = new URLSearchParams({ client_id: DASHBOARD.id, redirect_uri: REDIRECT, response_type: 'code', ...params });
  return `${base}/oauth/authorize?${query}`;
}

export async function tokenRequest(base: string, form: Record<string, string>, basic?: { id: string; secret: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}`;
  const response = await fetch(`${base}/oauth/token`, { method: 'POST', headers, body: new URLSearchParams(form).toString() });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function codeFor(base: string, scope: string, user = ALICE, extra: Record<string, string> = {}) {
  const state = randomBytes(8).toString('hex');
  const flow = await authorize(authorizeUrl(base, { scope, state, ...extra }), user);
  expect(flow.callback, flow.last.body).not.toBeNull();
  expect(flow.callback!.searchParams.get('state')).toBe(state);
  return flow.callback!.searchParams.get('code')!;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** An access token of `user` for `scope`, through the whole authorization-code flow. */
export async function accessTokenFor(base: string, scope: string, user = ALICE): Promise<string> {
  const code = await codeFor(base, scope, user);
  const token = await tokenRequest(base, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT }, DASHBOARD);
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  return token.body.access_token as string;
}

/**
 * A sign-in driven like a browser behind a load balancer, for ALICE: the request of step `i` goes
 * to `urlOf(i)` in place of `issuer` (the public address every instance answers for). Answers the
 * code, the state it came back with and the step it arrived at (where a caller may exchange it).
 */
export async function codeAcross(issuer: string, urlOf: (step: number) => string, scope: string): Promise<{ code: string | null; state: string | null; step: number }> {
  const browser = new Browser();
  const state = randomBytes(8).toString('hex');
  let url = authorizeUrl(issuer, { scope, state });
  const at = (step: number, href: string) => href.replace(issuer, urlOf(step));
  let response = await browser.request(at(0, url));
  for (let step = 1; step < 14; step++) {
    if (response.status >= 300 && response.status < 400) {
      const location = new URL(response.headers.get('location')!, url);
      if (location.href.startsWith(REDIRECT)) return { code: location.searchParams.get('code'), state: location.searchParams.get('state'), step };
      url = location.href;
      response = await browser.request(at(step, url));
      continue;
    }
    const body = await response.text();
    if (response.status === 200 && /name="password"/.test(body)) {
      response = await browser.postForm(at(step, url), { action: 'login', email: ALICE.email, password: ALICE.password });
    } else if (response.status === 200 && /value="consent"/.test(body)) {
      response = await browser.postForm(at(step, url), { action: 'consent' });
    } else {
      throw new Error(`the sign-in stopped at step ${step} (HTTP ${response.status}): ${body.slice(0, 300)}`);
    }
  }
  throw new Error('the sign-in did not finish');
}
