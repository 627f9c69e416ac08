/** The OAuth signing key set as stored and shared (keys.ts makes it, shared-keys.ts shares it). */

/**
 * A key set: `keys[0]` signs; any later key only verifies what it signed before (an instance's
 * key from before it joined the shared set), until `retired[kid]` (epoch ms; none: for good).
 */
export type Jwks = { keys: Array<Record<string, unknown>>; retired?: Record<string, number> };

/** The keys of `jwks` in force at `now`: the signing key, and each other one until it is retired. */
export function keysInForce(jwks: Jwks, now: number): Jwks['keys'] {
  return jwks.keys.filter((key, i) => i === 0 || !((jwks.retired?.[String(key.kid)] ?? Infinity) <= now));
}
