/**
 * The methods each OAuth path answers, as the provider is configured (provider.ts): a known path
 * asked with another method is a 405 in the OAuth error form with `Allow` (RFC 9110 15.5.6), where
 * the provider's own router would answer a plain-text "Not Found"; a path it does not serve (a
 * feature left off: introspection, registration, device flow, logout...) is our 404.
 *
 * GET comes with HEAD, as the provider's router answers both. OPTIONS is the CORS preflight the
 * provider answers on the endpoints a browser app may call (token, jwks, userinfo, revocation,
 * PAR, discovery). The authorization endpoint is GET only: POST there needs oidc-provider's
 * `enableHttpPostMethods`, which is off (a cross-site form post would carry no session cookie).
 */
import { DISCOVERY_PATH, interactionPath, OAUTH_ROUTES } from './provider.ts';

const READ = ['GET', 'HEAD'];

/** Each served path (`:param` for one segment) and its methods. */
export const ENDPOINTS: ReadonlyArray<readonly [string, readonly string[]]> = [
  [OAUTH_ROUTES.authorization, READ],
  // Where the provider resumes an authorization once the sign-in pages are done.
  [`${OAUTH_ROUTES.authorization}/:uid`, READ],
  [interactionPath(':uid'), ['GET', 'POST']],
  [OAUTH_ROUTES.token, ['POST', 'OPTIONS']],
  [OAUTH_ROUTES.jwks, [...READ, 'OPTIONS']],
  [OAUTH_ROUTES.userinfo, [...READ, 'POST', 'OPTIONS']],
  [OAUTH_ROUTES.revocation, ['POST', 'OPTIONS']],
  [OAUTH_ROUTES.pushed_authorization_request, ['POST', 'OPTIONS']],
  // The provider registers the logout confirmation whether or not logout is on.
  [`${OAUTH_ROUTES.end_session}/confirm`, ['POST']],
  [DISCOVERY_PATH, [...READ, 'OPTIONS']],
];

const MATCHERS = ENDPOINTS.map(([path, methods]) => ({
  pattern: new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/:[^/]+/g, '[^/]+')}/?$`),
  methods,
}));

/** The methods `path` answers, or null when no OAuth endpoint lives there. */
export function endpointMethods(path: string): readonly string[] | null {
  return MATCHERS.find((matcher) => matcher.pattern.test(path))?.methods ?? null;
}

/** 405 in the OAuth error form (RFC 6749 5.2 shape), naming the methods the path answers. */
export function wrongMethod(method: string, path: string, allowed: readonly string[]): Response {
  const body = { error: 'invalid_request', error_description: `Method ${method} is not allowed on ${path}; use ${allowed.join(', ')}.` };
  return new Response(JSON.stringify(body), {
    status: 405,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', allow: allowed.join(', ') },
  });
}
