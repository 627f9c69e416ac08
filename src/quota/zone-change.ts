/**
 * Periodic key budgets across a change of the account's time zone. A key's budget counts in its
 * account's zone, under a counter named by the period's first local day (counter.ts), so a new zone
 * moves the key onto another counter: often one nothing counted on yet (that day has not begun,
 * or ended long ago, in the old zone), which would hand a spent budget back on each change.
 *
 * So the usage of each key's current period in the old zone is carried into the counter of the
 * period current in the new zone, which it only ever raises:
 *
 * 1. `carryZoneChange`, before the new zone is visible to any call: the new counter is raised to
 *    the old one's usage, so no call counting in the new zone ever sees less than was spent;
 * 2. the follow-up it returns, once the new zone is visible (run after the change is announced,
 *    and again once no instance can still hold the old zone nor run a call admitted under it):
 *    what calls still counting in the old zone added meanwhile (instances not told yet, a
 *    settings cache entry not expired yet, late settlements) is added to the new counter too.
 *
 * No script is needed for this to hold against concurrent calls: counters only move by
 * increments, so "read both, add the difference" leaves the new counter at
 * max(old, new) + every reservation made on it meanwhile, none lost; and the old counter's growth
 * after the first read is exactly what the follow-ups add. A zone change is rare and off the hot
 * path, which stays one store call. (Group and provider budgets follow the gateway's zone, which
 * no account can change.)
 */
import type { KeyConfig } from '../config/types.ts';
import type { StateStore } from '../store/types.ts';
import { keyBudget } from './budgets.ts';
import type { QuotaCounter } from './counter.ts';

/** Adds what the old zone's counters gained since the last look to the new zone's. */
export type ZoneFollowUp = () => Promise<void>;

interface Move {
  from: string;
  to: QuotaCounter;
  /** The old counter's value already carried. */
  seen: number;
}

/** Adds each positive amount to its counter in one store call; a new periodic counter gets its expiry. */
async function raise(store: StateStore, counters: QuotaCounter[], amounts: number[]): Promise<void> {
  const rules = counters.flatMap((counter, i) =>
    amounts[i]! > 0 ? [{ key: counter.key, limit: 0, reserve: amounts[i]!, ...(counter.ttlMs ? { ttlMs: counter.ttlMs } : {}) }] : [],
  );
  if (rules.length) await store.admit([], rules);
}

/**
 * Carries the current period's usage of `keys` (an account's) from zone `from` into zone `to`.
 * Call it before the new zone is visible; run the follow-up it returns once it is.
 * @example const followUp = await carryZoneChange(store, keys, 'UTC', 'America/Los_Angeles', Date.now());
 */
export async function carryZoneChange(store: StateStore, keys: readonly KeyConfig[], from: string, to: string, now: number): Promise<ZoneFollowUp> {
  const moves: Move[] = keys
    .filter((key) => key.permissions.quota_period)
    .map((key) => ({ from: keyBudget(key, from, now).counter.key, to: keyBudget(key, to, now).counter, seen: 0 }))
    // The same label in both zones is the same counter: nothing to carry.
    .filter((move) => move.from !== move.to.key);
  if (!moves.length) return async () => {};
  const values = await store.getCounters([...moves.map((m) => m.from), ...moves.map((m) => m.to.key)]);
  moves.forEach((move, i) => (move.seen = values[i]!));
  await raise(store, moves.map((m) => m.to), moves.map((m, i) => m.seen - values[moves.length + i]!));

  return async function followUp() {
    const current = await store.getCounters(moves.map((m) => m.from));
    // A drop (a refund settled on the old counter) is not passed on: the new counter is never lowered.
    const gained = moves.map((move, i) => current[i]! - move.seen);
    moves.forEach((move, i) => (move.seen = current[i]!));
    await raise(store, moves.map((m) => m.to), gained);
  };
}
