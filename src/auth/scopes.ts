/**
 * The platform's OAuth scopes (spec 4.10) with their English description; the consent page's
 * texts in every language are in src/i18n/oauth-pages.ts. Which route needs which scope is in
 * src/auth/route-scopes.ts. `write:billing` (top-ups and subscriptions) is not offered: the
 * gateway has no top-up or subscription to manage, so it would guard nothing.
 */
export const PLATFORM_SCOPES = {
  'read:user': 'Read your user information and security settings',
  'write:user': 'Change your user information and security settings',
  'read:api': 'Read your API keys, API usage, models and call logs',
  'write:api': 'Create, change, rotate and delete your API keys, and call models on your account',
  'read:billing': 'Read your billing information (costs, exports)',
} as const;

export type PlatformScope = keyof typeof PLATFORM_SCOPES;

/**
 * The standard OpenID Connect scopes the provider serves (claims in src/features/oauth/claims.ts):
 * a relying party, another gateway's SSO included, asks for `openid email profile`.
 */
export const OIDC_SCOPES = ['openid', 'offline_access', 'email', 'profile'];

/** Every scope the provider knows: the platform's plus the OpenID ones. */
export const SUPPORTED_SCOPES = [...OIDC_SCOPES, ...Object.keys(PLATFORM_SCOPES)];

/** Whether `scope` is one of the platform's scopes (not an OpenID one, not unknown). */
export const isPlatformScope = (scope: string): scope is PlatformScope => Object.hasOwn(PLATFORM_SCOPES, scope);

/** The platform scopes among `scopes`, once each, in the table's order (a stable list for gateway.yaml). */
export function platformScopes(scopes: Iterable<string>): PlatformScope[] {
  const held = new Set(scopes);
  return (Object.keys(PLATFORM_SCOPES) as PlatformScope[]).filter((scope) => held.has(scope));
}

/**
 * Whether a credential holding `inner` can do no more than one holding `outer`; `undefined` is an
 * unscoped credential (the master key, an unscoped API key), which holds every platform scope.
 */
export function scopesWithin(inner: Iterable<string> | undefined, outer: ReadonlySet<string> | undefined): boolean {
  if (!outer) return true;
  return [...(inner ?? Object.keys(PLATFORM_SCOPES))].every((scope) => outer.has(scope));
}
