/**
 * What oidc-provider would print or render by itself, routed through the gateway instead: logs
 * are JSON lines on stderr, so none of its plain console lines may reach stdout or stderr.
 *
 * - Loading it on a Node.js release it does not support prints a warning with `console.warn`
 *   (lib/index.js, lib/helpers/attention.js): sent to the JSON log while it loads.
 * - Its default `renderError` prints a NOTICE on stdout and answers its own page, for any
 *   anonymous `/oauth/authorize?client_id=x`: ours renders our error page (or the OAuth error
 *   JSON) and logs the refusal.
 * - Its default `clientBasedCORS` prints a NOTICE too: ours makes the same decision, silently.
 */
import type { KoaContext } from 'oidc-provider';
import { fromAcceptLanguage } from '../../i18n/language.ts';
import type { Logger } from '../../pipeline/types.ts';
import { HTML_HEADERS, oauthErrorPage } from './views.ts';

type OidcProviderModule = typeof import('oidc-provider');

let loading: Promise<OidcProviderModule> | undefined;

/** What the provider prints begins so, possibly inside terminal colours. */
const WARNING = /^(?:\x1b\[[\d;]*m)?oidc-provider WARNING: (.*?)(?:\x1b\[[\d;]*m)?$/s;

/**
 * oidc-provider, loaded once per process. Its load-time warnings go to `logger`; anything else
 * written with `console.warn` meanwhile is passed on unchanged.
 */
export function importOidcProvider(logger: Logger): Promise<OidcProviderModule> {
  loading ??= (async () => {
    const { warn } = console;
    console.warn = (...args: unknown[]) => {
      const match = typeof args[0] === 'string' && args.length === 1 ? WARNING.exec(args[0]) : null;
      if (match) logger.warn(`oidc-provider: ${match[1]}`, { node: process.version });
      else warn.apply(console, args);
    };
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = warn;
    }
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** The error the provider hands its renderer: RFC 6749 `error` and `error_description`. */
interface ErrorOut {
  error?: string;
  error_description?: string;
}

/**
 * The provider's `renderError`: called when a refused request cannot go back to a client
 * (unknown client, bad redirect_uri, an expired interaction...). A page in the reader's
 * language, or the OAuth error JSON for a client that asks for JSON. Refusals are logged at
 * info (any anonymous client can cause them); a server error is logged by the `server_error`
 * listener (provider.ts).
 */
export function renderOAuthError(logger: Logger) {
  return async function renderError(ctx: KoaContext, out: ErrorOut): Promise<void> {
    if (ctx.status < 500) {
      logger.info('oauth request refused', { status: ctx.status, path: ctx.path, error: out.error, error_description: out.error_description });
    }
    ctx.set('cache-control', 'no-store');
    if (ctx.accepts('html', 'json') === 'json') {
      ctx.type = 'application/json';
      ctx.body = { error: out.error ?? 'server_error', error_description: out.error_description };
      return;
    }
    for (const [name, value] of Object.entries(HTML_HEADERS)) ctx.set(name, value);
    ctx.body = oauthErrorPage(fromAcceptLanguage(ctx.get('accept-language')), out);
  };
}

/**
 * The provider's `clientBasedCORS`, as its default decides: a cross-origin call is allowed to
 * userinfo, and for a public client, from the origin of one of the client's redirect URIs.
 */
export function clientBasedCors(ctx: { oidc: { route: string } }, origin: string, client: { clientAuthMethod: string; redirectUris: string[] }): boolean {
  if (origin === 'null') return false;
  if (ctx.oidc.route !== 'userinfo' && client.clientAuthMethod !== 'none') return false;
  return client.redirectUris.some((uri) => URL.canParse(uri) && new URL(uri).origin === origin);
}
