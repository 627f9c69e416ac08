/**
 * API keys revoked on another instance (deleted, deactivated, rotated away), refused here from the
 * moment that instance's change message arrives. Applying the change itself (writing this
 * instance's copy of gateway.yaml, then reloading) takes a while, and a revoked key must not be
 * served meanwhile: the message arrives before the other instance even answers its caller.
 */
import type { KeyConfig } from '../config/types.ts';
import type { Runtime } from '../runtime.ts';

const kRevoked = 'revokedKeyHashes';

const revokedSet = (runtime: Runtime) => runtime.services[kRevoked] as Set<string> | undefined;

/** True while `keyHash` is revoked by a change not yet applied here. */
export function isRevoked(runtime: Runtime, keyHash: string): boolean {
  return revokedSet(runtime)?.has(keyHash) ?? false;
}

/**
 * Refuses `keyHashes` until `applied` resolves true (the change is in force here; then the
 * snapshot itself refuses them). A change that failed to apply keeps them refused.
 */
export function holdRevocations(runtime: Runtime, keyHashes: readonly string[], applied: Promise<boolean>): void {
  if (!keyHashes.length) return;
  let held = revokedSet(runtime);
  if (!held) runtime.services[kRevoked] = held = new Set();
  for (const hash of keyHashes) held.add(hash);
  void applied.then(
    (ok) => {
      if (ok) for (const hash of keyHashes) held.delete(hash);
    },
    () => {},
  );
}

/** The hashes of keys active in `before` and not in `after`: what a change revokes. */
export function revokedBetween(before: readonly KeyConfig[], after: readonly KeyConfig[]): string[] {
  const stillActive = new Set(after.filter((k) => k.status === 'active').map((k) => k.key_hash));
  return before.filter((k) => k.status === 'active' && !stillActive.has(k.key_hash)).map((k) => k.key_hash);
}
