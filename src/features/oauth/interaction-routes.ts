/**
 * The user-facing steps of the authorization flow (login, consent, abort), as in oidc-provider's
 * example routes: read the pending interaction, show a form, and hand the result back to the
 * provider, which then redirects to the client with `code` and `state`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { H3Event } from 'h3';
import type Provider from 'oidc-provider';
import type { Interaction } from 'oidc-provider';
import { requestIp } from '../../http/client-ip.ts';
import type { SecurityService } from '../security/service.ts';
import { createSignIn, type SignInClient, type SignInResult } from './sign-in.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { consentPage, errorPage, html, loginPage, secondFactorPage } from './views.ts';
import { accountLanguage } from '../../i18n/account-language.ts';
import { fromAcceptLanguage, type Language } from '../../i18n/language.ts';
import { interactionPath } from './provider.ts';

const FORM_LIMIT = 16 * 1024;
/** The browser's trusted-device cookie (security/devices.ts), scoped to the sign-in pages. */
const DEVICE_COOKIE = 'gw_device';
const DEVICE_DAYS = 30;
/** How long a password-verified sign-in waits for its second factor. */
const SECOND_FACTOR_TTL_MS = 10 * 60_000;

interface NodePair {
  req: IncomingMessage;
  res: ServerResponse;
}

function nodePair(event: H3Event): NodePair | null {
  const node = event.runtime?.node;
  return node?.res ? { req: node.req as IncomingMessage, res: node.res as ServerResponse } : null;
}

const redirect = (location: string, cookie?: string) =>
  new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', ...(cookie ? { 'set-cookie': cookie } : {}) } });

function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

async function readForm(request: Request): Promise<URLSearchParams | null> {
  if (Number(request.headers.get('content-length') ?? 0) > FORM_LIMIT) return null;
  const text = await request.text();
  return text.length > FORM_LIMIT ? null : new URLSearchParams(text);
}

/** Scopes the consent is about: what the client asked for, limited to its allow-list. */
function requestedScopes(details: Interaction, clientScope: string | undefined): string[] {
  const allowed = new Set((clientScope ?? '').split(' ').filter(Boolean));
  const asked = details.prompt.details.missingOIDCScope ?? String(details.params.scope ?? '').split(' ').filter(Boolean);
  return asked.filter((scope) => allowed.has(scope));
}

/** Handlers for `GET|POST /oauth/interaction/:uid`. */
export function createInteractionHandlers(provider: Provider, runtime: Runtime, security: SecurityService, logger: Logger) {
  const signIn = createSignIn(runtime, security, logger);
  const secure = provider.issuer.startsWith('https:') ? '; Secure' : '';
  const secondFactorKey = (uid: string) => `gw:oauth:second-factor:${uid}`;

  function clientOf(event: H3Event): SignInClient {
    return {
      ip: requestIp(event.req, runtime.current().config.server.trusted_proxies),
      deviceCookie: cookieValue(event.req, DEVICE_COOKIE),
      userAgent: event.req.headers.get('user-agent'),
    };
  }

  /**
   * The signed-in account's language setting; before sign-in (the login and second-factor
   * pages), the browser's Accept-Language.
   */
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
    return runtime.current().accounts.get(id)?.email ?? id;
  }

  async function show(event: H3Event): Promise<Response> {
    const loaded = await load(event);
    if (loaded instanceof Response) return loaded;
    const { details, clientName, clientScope, language } = loaded;
    const action = interactionPath(details.uid);
    if (details.prompt.name === 'login') {
      if (await runtime.store.get(secondFactorKey(details.uid))) return html(secondFactorPage({ language, action, clientName }));
      return html(loginPage({ language, action, clientName }));
    }
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

    if (details.prompt.name === 'login' && (action === 'login' || action === 'second-factor' || action === 'recovery-code' || action === 'email-code')) {
      const client = clientOf(event);
      const email = (form.get('email') ?? '').trim();
      /** Hands a verified sign-in to the provider, which continues to consent; the device cookie rides along. */
      const finish = async (result: SignInResult & { kind: 'signed-in' }) => {
        await runtime.store.del(secondFactorKey(details.uid));
        const to = await provider.interactionResult(node.req, node.res, { login: { accountId: result.accountId } }, { mergeWithLastSubmission: false });
        return redirect(to, `${DEVICE_COOKIE}=${result.deviceCookie}; Path=/oauth; Max-Age=${DEVICE_DAYS * 86_400}; HttpOnly; SameSite=Lax${secure}`);
      };

      if (action === 'second-factor' || action === 'recovery-code') {
        const accountId = await runtime.store.get(secondFactorKey(details.uid));
        if (!accountId) return html(loginPage({ language, action: self, clientName, error: 'signInAgain' }), 400);
        const recovery = action === 'recovery-code';
        const result = await signIn.withSecondFactor(accountId, (form.get(recovery ? 'recovery_code' : 'code') ?? '').trim(), client, recovery);
        if (result.kind === 'signed-in') return finish(result);
        if (result.kind === 'refused') return html(secondFactorPage({ language, action: self, clientName, error: result.error }), result.status);
        return html(errorPage(language, 'stepMismatch'), 400);
      }

      if (action === 'email-code') {
        const limited = email ? await signIn.mailCode(email, client) : null;
        if (limited?.kind === 'refused') return html(loginPage({ language, action: self, clientName, email, error: limited.error, offerCode: true }), limited.status);
        return html(loginPage({ language, action: self, clientName, email, offerCode: true, codeSent: true }));
      }

      const password = form.get('password') ?? '';
      const code = (form.get('code') ?? '').trim() || null;
      if (!email || !password) return html(loginPage({ language, action: self, clientName, email, error: 'missingCredentials' }), 400);
      const result = await signIn.withPassword(email, password, code, client);
      if (result.kind === 'signed-in') return finish(result);
      if (result.kind === 'second-factor') {
        await runtime.store.set(secondFactorKey(details.uid), result.accountId, SECOND_FACTOR_TTL_MS);
        return html(secondFactorPage({ language, action: self, clientName }));
      }
      return html(loginPage({ language, action: self, clientName, email, error: result.error, offerCode: result.offerCode }), result.status);
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
