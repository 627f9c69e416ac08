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

/** Every scope the provider knows: the platform's plus the OpenID ones. */
export const SUPPORTED_SCOPES = ['openid', 'offline_access', ...Object.keys(PLATFORM_SCOPES)];
