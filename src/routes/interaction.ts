/**
 * The user-facing steps of the authorization flow (login, consent, abort), as in oidc-provider's
 * example routes: read the pending interaction, show a form, and hand the result back to the
 * provider, which then redirects to the client with `code` and `state`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { H3Event } from 'h3';
import type Provider from 'oidc-provider';
import type { Interaction } from 'oidc-provider';
import type { AccountConfig } from '../config/types.ts';
import { verifyPassword } from '../config/password.ts';
import type { Logger } from '../pipeline/types.ts';
import type { Runtime } from '../runtime.ts';
import { consentPage, errorPage, html, loginPage } from '../oauth/views.ts';
import { accountLanguage } from '../i18n/account-language.ts';
import { fromAcceptLanguage, type Language } from '../i18n/language.ts';
import { interactionPath } from '../oauth/provider.ts';

const FORM_LIMIT = 16 * 1024;
/** Failed sign-ins per email per minute before the form refuses (against password guessing). */
const LOGIN_LIMIT = 10;
// A valid hash of a random password: unknown emails cost as much as wrong passwords.
const DECOY_HASH = '$scrypt$ln=17,r=8,p=1$3pZ5Qm9rY2tVc2VyRGVjb3k$0000000000000000000000000000000000000000000';

interface NodePair {
  req: IncomingMessage;
  res: ServerResponse;
}

function nodePair(event: H3Event): NodePair | null {
  const node = event.runtime?.node;
  return node?.res ? { req: node.req as IncomingMessage, res: node.res as ServerResponse } : null;
}

const redirect = (location: string) =>
  new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store' } });

async function readForm(request: Request): Promise<URLSearchParams | null> {
  if (Number(request.headers.get('content-length') ?? 0) > FORM_LIMIT) return null;
  const text = await request.text();
  return text.length > FORM_LIMIT ? null : new URLSearchParams(text);
}

function findAccountByEmail(runtime: Runtime, email: string): AccountConfig | undefined {
  const wanted = email.trim().toLowerCase();
  for (const account of runtime.snapshot.accounts.values()) if (account.email.toLowerCase() === wanted) return account;
  return undefined;
}

/**
 * Failed sign-ins of one email in the current minute. Read-then-write is enough here: a race only
 * lets a few more guesses through, and each guess costs an scrypt.
 */
async function loginFailures(runtime: Runtime, email: string) {
  const key = `gw:oauth:login-failures:${email.toLowerCase()}`;
  const raw = await runtime.store.get(key);
  const state = raw ? (JSON.parse(raw) as { count: number; resetAt: number }) : null;
  const current = state && state.resetAt > Date.now() ? state : { count: 0, resetAt: Date.now() + 60_000 };
  return {
    count: current.count,
    async record() {
      const latest = await runtime.store.get(key);
      const base = latest ? (JSON.parse(latest) as typeof current) : current;
      const next = base.resetAt > Date.now() ? { count: base.count + 1, resetAt: base.resetAt } : { count: 1, resetAt: Date.now() + 60_000 };
      await runtime.store.set(key, JSON.stringify(next), next.resetAt - Date.now());
    },
  };
}

/** Scopes the consent is about: what the client asked for, limited to its allow-list. */
function requestedScopes(details: Interaction, clientScope: string | undefined): string[] {
  const allowed = new Set((clientScope ?? '').split(' ').filter(Boolean));
  const asked = details.prompt.details.missingOIDCScope ?? String(details.params.scope ?? '').split(' ').filter(Boolean);
  return asked.filter((scope) => allowed.has(scope));
}

/** Handlers for `GET|POST /oauth/interaction/:uid`. */
export function createInteractionHandlers(provider: Provider, runtime: Runtime, logger: Logger) {
  /** The signed-in account's language setting; before sign-in, the browser's Accept-Language. */
  async function pageLanguage(event: H3Event, details?: Interaction): Promise<Language> {
    const accountId = details?.session?.accountId;
    return accountId ? accountLanguage(runtime, accountId) : fromAcceptLanguage(event.req.headers.get('accept-language'));
  }

  async function load(event: H3Event): Promise<{ node: NodePair; details: Interaction; clientName: string; clientScope?: string; language: Language } | Response> {
    const node = nodePair(event);
    if (!node) return html(errorPage(await pageLanguage(event), 'cannotRun'), 500);
    let details: Interaction;
    try {
      details = await provider.interactionDetails(node.req, node.res);
    } catch {
      return html(errorPage(await pageLanguage(event), 'expired'), 400);
    }
    const language = await pageLanguage(event, details);
    const uid = event.context.params?.uid;
    if (details.uid !== uid) return html(errorPage(language, 'sessionMismatch'), 400);
    const client = await provider.Client.find(String(details.params.client_id));
    if (!client) return html(errorPage(language, 'clientGone'), 400);
    return { node, details, clientName: client.clientName ?? client.clientId, clientScope: client.scope, language };
  }

  function accountLabel(details: Interaction): string {
    const id = details.session?.accountId ?? '';
    return runtime.snapshot.accounts.get(id)?.email ?? id;
  }

  async function show(event: H3Event): Promise<Response> {
    const loaded = await load(event);
    if (loaded instanceof Response) return loaded;
    const { details, clientName, clientScope, language } = loaded;
    const action = interactionPath(details.uid);
    if (details.prompt.name === 'login') return html(loginPage({ language, action, clientName }));
    if (details.prompt.name === 'consent') {
      return html(consentPage({ language, action, clientName, account: accountLabel(details), scopes: requestedScopes(details, clientScope) }));
    }
    return html(errorPage(language, 'unsupportedStep'), 400);
  }

  async function submit(event: H3Event): Promise<Response> {
    const loaded = await load(event);
    if (loaded instanceof Response) return loaded;
    const { node, details, clientName, clientScope, language } = loaded;
    const form = await readForm(event.req);
    if (!form) return html(errorPage(language, 'formTooLarge'), 413);
    const action = form.get('action') ?? details.prompt.name;
    const self = interactionPath(details.uid);

    if (action === 'abort') {
      const to = await provider.interactionResult(node.req, node.res, { error: 'access_denied', error_description: 'The user denied the request.' }, { mergeWithLastSubmission: false });
      return redirect(to);
    }

    if (action === 'login' && details.prompt.name === 'login') {
      const email = (form.get('email') ?? '').trim();
      const password = form.get('password') ?? '';
      if (!email || !password) return html(loginPage({ language, action: self, clientName, email, error: 'missingCredentials' }), 400);
      const failures = await loginFailures(runtime, email);
      if (failures.count >= LOGIN_LIMIT) return html(loginPage({ language, action: self, clientName, email, error: 'tooManyAttempts' }), 429);
      const account = findAccountByEmail(runtime, email);
      const ok = await verifyPassword(password, account?.password_hash ?? DECOY_HASH);
      if (!account || !account.password_hash || !ok) {
        await failures.record();
        logger.info('oauth login refused', { email });
        return html(loginPage({ language, action: self, clientName, email, error: 'wrongCredentials' }), 401);
      }
      const to = await provider.interactionResult(node.req, node.res, { login: { accountId: account.id } }, { mergeWithLastSubmission: false });
      return redirect(to);
    }

    if (action === 'consent' && details.prompt.name === 'consent') {
      const accountId = details.session?.accountId;
      if (!accountId) return html(errorPage(language, 'signInFirst'), 400);
      const clientId = String(details.params.client_id);
      const existing = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
      const grant = existing ?? new provider.Grant({ accountId, clientId });
      const scopes = requestedScopes(details, clientScope);
      if (scopes.length) grant.addOIDCScope(scopes.join(' '));
      if (details.prompt.details.missingOIDCClaims?.length) grant.addOIDCClaims(details.prompt.details.missingOIDCClaims);
      const grantId = await grant.save();
      const to = await provider.interactionResult(node.req, node.res, { consent: existing ? {} : { grantId } }, { mergeWithLastSubmission: true });
      return redirect(to);
    }

    return html(errorPage(language, 'stepMismatch'), 400);
  }

  return { show, submit };
}
