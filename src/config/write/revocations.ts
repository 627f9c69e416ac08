/**
 * API keys revoked on another instance (deleted, deactivated, rotated away), refused here from the
 * moment that instance's change message arrives. Applying the change itself (writing this
 * instance's copy of gateway.yaml, then reloading) takes a while, and a revoked key must not be
 * served meanwhile: the message arrives before the other instance even answers its caller.
 *
 * Held per state store: there is one per running gateway, and it is what the instances share.
 */
import type { KeyConfig } from '../types.ts';

const held = new WeakMap<object, Set<string>>();

/** True while `keyHash` is revoked by a change not yet applied here. */
export function isRevoked(store: object, keyHash: string): boolean {
  return held.get(store)?.has(keyHash) ?? false;
}

/**
 * Refuses `keyHashes` until `applied` resolves true (the change is in force here; then the
 * snapshot itself refuses them). A change that failed to apply keeps them refused.
 */
export function holdRevocations(store: object, keyHashes: readonly string[], applied: Promise<boolean>): void {
  if (!keyHashes.length) return;
  let revoked = held.get(store);
  if (!revoked) held.set(store, (revoked = new Set()));
  for (const hash of keyHashes) revoked.add(hash);
  void applied.then(
    (ok) => {
      if (ok) for (const hash of keyHashes) revoked.delete(hash);
    },
    () => {},
  );
}

/** The hashes of keys active in `before` and not in `after`: what a change revokes. */
export function revokedBetween(before: readonly KeyConfig[], after: readonly KeyConfig[]): string[] {
  const stillActive = new Set(after.filter((k) => k.status === 'active').map((k) => k.key_hash));
  return before.filter((k) => k.status === 'active' && !stillActive.has(k.key_hash)).map((k) => k.key_hash);
}
