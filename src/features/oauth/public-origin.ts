/**
 * Every URL the OAuth server publishes (the discovery document's endpoints and `jwks_uri`, the
 * redirects to its own steps) derives from the issuer, the configured public base URL. Left alone,
 * oidc-provider builds them from the request (Koa's `ctx.href`: the Host header, X-Forwarded-Host
 * and -Proto behind `proxy`, or an absolute request target), all chosen by the caller: a forged
 * Host would point the discovery document at another server, which a client would then send its
 * users and secrets to. The issuer must be the public URL anyway (README "OAuth"), so it is the
 * one origin; cookies are `Secure` exactly when it is https, whatever hop terminated TLS.
 */
import type Provider from 'oidc-provider';
import type { KoaContext } from 'oidc-provider';

/** The path and query of a request target, also of an absolute one (`GET http://host/path`). */
function pathOf(target: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return target;
  const url = new URL(target);
  return `${url.pathname}${url.search}`;
}

/**
 * Pins the provider's idea of its own origin to the issuer; `cacheControl` (path → header) is set
 * on those paths' successful answers.
 */
export function pinToIssuer(provider: Provider, cacheControl: Readonly<Record<string, string>>): void {
  const issuer = new URL(provider.issuer);
  const protocol = issuer.protocol.slice(0, -1);
  // No request header decides anything in the provider any more (addresses are ours to resolve).
  provider.proxy = false;
  provider.use(async function issuerOrigin(ctx: KoaContext, next: () => Promise<void>) {
    // Own properties shadow Koa's request getters: `secure` follows `protocol`, and `href` is the
    // base oidc-provider resolves its URLs against.
    Object.defineProperties(ctx.request, {
      protocol: { value: protocol },
      host: { value: issuer.host },
      hostname: { value: issuer.hostname },
      href: { get: () => `${issuer.origin}${pathOf(ctx.originalUrl)}` },
    });
    await next();
    const cache = cacheControl[ctx.path];
    if (cache && ctx.status === 200) ctx.set('cache-control', cache);
  });
}
