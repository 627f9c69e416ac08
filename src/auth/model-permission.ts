/**
 * Whether a caller may use a model (spec 5.4): the key's `permissions.models` and its account
 * group's `models`, both allow-lists where empty allows every model. The master key, and a
 * pipeline without the auth step (no principal), are not restricted.
 */
import type { Snapshot } from '../config/snapshot.ts';
import type { Principal } from '../pipeline/principal.ts';
import { modelAllowed } from './model-patterns.ts';

/** True when `principal` may be served by `model` (an identifier as a request names it). */
export function modelPermitted(principal: Principal | undefined, snapshot: Snapshot, model: string): boolean {
  if (!principal || principal.kind === 'master') return true;
  const group = principal.groupId ? snapshot.groups.get(principal.groupId) : undefined;
  return modelAllowed(model, principal.key?.permissions.models ?? []) && modelAllowed(model, group?.models ?? []);
}
