/**
 * Why a company sign-in failed, as the error page must say it: the person's account (the identity
 * provider refused them), the configuration (a scope, client id or secret the provider does not
 * accept), or the provider being out of reach. Blaming the account for a configuration fault sent
 * people to their administrator with the wrong question (issue 34).
 */
import type { PageError } from '../oauth/views.ts';

/** OAuth error codes that mean "this client is set up wrong", never "this person may not". */
const CONFIGURATION_ERRORS = new Set([
  'invalid_scope',
  'invalid_client',
  'unauthorized_client',
  'unsupported_response_type',
  'unsupported_grant_type',
  'invalid_request',
  'invalid_request_uri',
  'invalid_grant_type',
  'server_error',
  'temporarily_unavailable',
]);

export interface SsoFailure {
  page: PageError;
  /** What the provider said, shown as written (escaped) under the page's sentence. */
  detail?: string;
  /** Whether an administrator has to act: logged as an error rather than a warning. */
  operatorFault: boolean;
}

const describe = (error: string, description: string | null | undefined) => (description ? `${error}: ${description}` : error);

/** A failure the provider reported on the callback (`?error=...&error_description=...`). */
export function callbackFailure(error: string, description: string | null): SsoFailure {
  if (CONFIGURATION_ERRORS.has(error)) return { page: 'ssoMisconfigured', detail: describe(error, description), operatorFault: true };
  return { page: 'ssoRefused', detail: description ?? error, operatorFault: false };
}

/** A failure of our own calls to the provider (discovery, code exchange, userinfo). */
export function exchangeFailure(thrown: unknown): SsoFailure {
  const oauthError = (thrown as { error?: unknown })?.error;
  if (typeof oauthError === 'string') {
    const description = (thrown as { error_description?: unknown }).error_description;
    return { page: 'ssoMisconfigured', detail: describe(oauthError, typeof description === 'string' ? description : null), operatorFault: true };
  }
  // fetch failures (refused, DNS, TLS) are TypeErrors with a cause; a response that is no OIDC at all too.
  const code = (thrown as { code?: unknown; cause?: { code?: unknown } })?.cause?.code ?? (thrown as { code?: unknown })?.code;
  if (thrown instanceof TypeError || (typeof code === 'string' && /^(ECONN|ENOTFOUND|EAI_|ETIMEDOUT|UND_ERR)/.test(code))) {
    return { page: 'ssoUnreachable', operatorFault: true };
  }
  return { page: 'ssoIncomplete', operatorFault: false };
}
