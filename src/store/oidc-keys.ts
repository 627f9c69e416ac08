/**
 * Where oidc-provider's artefacts lie in the state store, and in what form. The id of an access
 * token, refresh token, authorization code, session (the `_session` cookie), interaction, device
 * code or pushed request *is* the bearer secret, so a key holding it would hand every live token
 * to anyone able to list the store (Redis SCAN, a copy of state.db). Keys hold its SHA-256 instead,
 * as API keys are kept, and the payload leaves out what repeats it (`jti`, an interaction's copy
 * of the session cookie). The id is given back on every lookup, so it need not be stored.
 *
 * Every model is keyed this way, one rule for all, though Grant and ReplayDetection ids are no
 * secrets: grant ids sit in every token's payload and name the grant index, which lists hashed keys.
 */
import { createHash } from 'node:crypto';
import type { AdapterPayload } from 'oidc-provider';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** The state store key of one artefact of oidc-provider's `model` (`AccessToken`, `Session`...). */
export const oidcKey = (model: string, id: string) => `gw:oidc:${model}:sha256:${sha256(id)}`;

/**
 * The key an artefact had before ids were hashed: the id in clear. Only read, so that what was
 * issued before (tokens live up to 14 days) keeps working; whatever is found there moves to
 * `oidcKey` at once. Ids are base64url (nanoid), so no hashed key ever reads as one of these.
 */
export const legacyOidcKey = (model: string, id: string) => `gw:oidc:${model}:${id}`;

/** A session's lookup by its uid (not a secret: it sits in tokens' `sessionUid`). Holds the session's `oidcKey`. */
export const sessionUidKey = (uid: string) => `gw:oidc:SessionUid:${uid}`;

/**
 * A device code's lookup by the code the user types, hashed like the rest; holds the device code's
 * `oidcKey`. The code stays in the device code's payload: it only lets a signed-in user approve
 * that device (and the device flow is off).
 */
export const userCodeKey = (userCode: string) => `gw:oidc:UserCode:sha256:${sha256(userCode)}`;
export const legacyUserCodeKey = (userCode: string) => `gw:oidc:UserCode:${userCode}`;

/** The artefacts issued under a grant, by their keys (for `revokeByGrantId`). */
export const grantIndexKey = (grantId: string) => `gw:oidc:GrantIndex:${grantId}`;

/** A value of the SessionUid / UserCode lookups in the current form (a key), not an id in clear. */
export const isOidcKey = (value: string) => value.startsWith('gw:oidc:') && value.includes(':sha256:');

/**
 * The payload as stored: without `jti` (the id itself) and, for an interaction, without its copy
 * of the session's id (`session.cookie`, which oidc-provider writes and never reads back).
 */
export function payloadAtRest(model: string, payload: AdapterPayload): AdapterPayload {
  const { jti: _jti, ...rest } = payload;
  const session = rest.session as Record<string, unknown> | undefined;
  if (model === 'Interaction' && session && typeof session === 'object' && 'cookie' in session) {
    const { cookie: _cookie, ...kept } = session;
    return { ...rest, session: kept } as AdapterPayload;
  }
  return rest;
}

/** The payload oidc-provider gets back: its `jti` is the id it was looked up by. */
export const payloadFound = (payload: AdapterPayload, id: string): AdapterPayload => ({ ...payload, jti: id });
