/**
 * Resolve a bearer credential to a principal: the master key, an API key from gateway.yaml
 * (looked up by its SHA-256, so the clear key is never stored; with the scopes it was given, if
 * any), or an OAuth access token.
 */
import { hash, timingSafeEqual } from 'node:crypto';
import { hashApiKey } from '../config/keys.ts';
import type { Principal } from '../pipeline/principal.ts';
import type { Runtime } from '../pipeline/runtime.ts';
import type { Snapshot } from '../config/snapshot.ts';
import { isRevoked } from '../config/write/revocations.ts';

/** Resolves OAuth access tokens in-process (registered by the OAuth module when enabled). */
export interface TokenVerifier {
  verify(token: string, snapshot: Snapshot): Promise<Principal | null>;
}

declare module '../pipeline/services.ts' {
  interface Services {
    /** OAuth access tokens (the OAuth feature); without it only keys and the master key pass. */
    tokens?: TokenVerifier;
  }
}

/**
 * The caller's credential: `Authorization: Bearer`, else `x-api-key` (what the Anthropic SDK and
 * coding agents send). Either way a gateway key or OAuth token, never passed upstream.
 */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get('authorization');
  if (!header) return request.headers.get('x-api-key')?.trim() || null;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match ? match[1].trim() : null;
}

const digest = (text: string) => hash('sha256', text, 'buffer') as unknown as Buffer;

/** The master key's digest, computed once per key value rather than on every request. */
let master: { key: string; digest: Buffer } | undefined;

/** Constant-time comparison with the master key (digests: equal lengths whatever the input). */
function isMasterKey(token: string, masterKey: string): boolean {
  if (master?.key !== masterKey) master = { key: masterKey, digest: digest(masterKey) };
  return timingSafeEqual(digest(token), master.digest);
}

export async function resolveCredential(token: string, runtime: Runtime, snapshot: Snapshot): Promise<Principal | null> {
  if (runtime.masterKey && isMasterKey(token, runtime.masterKey)) {
    return { kind: 'master', accountId: 'admin', role: 'admin', account: snapshot.accounts.get('admin') };
  }
  // Map lookup by digest: timing depends only on the hash, never on how much of a key matched.
  const keyHash = hashApiKey(token);
  const key = snapshot.keysByHash.get(keyHash);
  if (key) {
    if (key.status !== 'active' || isRevoked(runtime.store, keyHash)) return null;
    if (key.permissions.expires_at !== undefined && !(Date.parse(key.permissions.expires_at) > Date.now())) return null;
    const account = snapshot.accounts.get(key.account);
    if (key.account !== 'admin' && !account) return null;
    return {
      kind: 'key',
      accountId: key.account,
      role: key.account === 'admin' ? 'admin' : (account?.role ?? 'member'),
      account,
      key,
      groupId: account?.group,
      // A key an OAuth token created holds that token's scopes, so it never does more than the token.
      ...(key.scopes ? { scopes: new Set<string>(key.scopes) } : {}),
    };
  }
  const verifier = runtime.services.tokens;
  return verifier ? verifier.verify(token, snapshot) : null;
}
