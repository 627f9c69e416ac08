/**
 * The OAuth key set shared by the instances of one Redis: one state-store entry, sealed with
 * AES-256-GCM under a key derived from GATEWAY_MASTER_KEY (the sealing of the shared config,
 * config-sync.ts), so Redis never holds the private key in clear. The first instance stores its
 * key set; the others read it. Every write is made under one lease, the store's atomic
 * take-if-free, after reading the entry again: instances starting or reconciling together never
 * store two different sets, nor drop the keys another one added.
 */
import { openConfig as openSealed, sealConfig } from '../../config/write/config-sync.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { StateStore } from '../../store/types.ts';
import { keysInForce, type Jwks } from './jwks.ts';

/** The sealed key set (the store adds its prefix). */
export const SHARED_KEYS_ENTRY = 'gw:oauth:jwks';
/** Told the signing kid whenever an instance stores the set, so the others compare at once. */
export const SHARED_KEYS_CHANNEL = 'gw:oauth:jwks-stored';
const CREATOR_LEASE = 'gw:oauth:jwks-creator';
/** Bound as associated data: a sealed config entry can never pass for a key set. */
const SEAL_VERSION = 'oauth-jwks-v1';
/** A creator that died holding the lease frees it after this long. */
const LEASE_MS = 15_000;
const POLL_MS = 100;
const WAIT_LIMIT_MS = 60_000;
/**
 * How long a signing key that gave way to the shared one still verifies: what it signed lives
 * at most as long as a browser session (14 days, provider.ts), ID tokens an hour.
 */
export const RETIRED_KEY_MS = 14 * 24 * 3600_000 + 3600_000;
/** At most this many keys in the set: a bound on what repeated splits can pile up. */
const MAX_KEYS = 6;

type Read = { raw: string | null; jwks: Jwks | null; unreadable: boolean };

async function readShared(store: StateStore, masterKey: string): Promise<Read> {
  const raw = await store.get(SHARED_KEYS_ENTRY);
  if (!raw) return { raw: null, jwks: null, unreadable: false };
  const opened = openSealed(masterKey, raw);
  if (!opened || opened.version !== SEAL_VERSION) return { raw, jwks: null, unreadable: true };
  return { raw, jwks: JSON.parse(opened.content.text) as Jwks, unreadable: false };
}

const seal = (masterKey: string, jwks: Jwks) => sealConfig(masterKey, SEAL_VERSION, { text: JSON.stringify(jwks), secrets: {} });

/**
 * The key set of every instance on `store`: the stored one, else the one `initial()` gives (this
 * instance's file, or new keys), stored for the others. An entry sealed under another master key
 * is replaced, with a warning: the instances must share GATEWAY_MASTER_KEY.
 */
export async function sharedJwks(store: StateStore, masterKey: string, initial: () => Promise<Jwks>, logger: Logger): Promise<Jwks> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const found = await readShared(store, masterKey);
    if (found.jwks) return found.jwks;
    const lease = await store.acquire(CREATOR_LEASE, 1, LEASE_MS);
    if (lease) {
      try {
        // Another instance may have stored its set between the read and the lease.
        const again = await readShared(store, masterKey);
        if (again.jwks) return again.jwks;
        if (again.unreadable) {
          logger.warn('the shared OAuth keys were sealed under another GATEWAY_MASTER_KEY: replacing them (instances must share one master key)');
        }
        const jwks = await initial();
        await store.set(SHARED_KEYS_ENTRY, seal(masterKey, jwks));
        // Instances running already (after Redis lost the entry) compare with it now.
        await store.publish(SHARED_KEYS_CHANNEL, String(jwks.keys[0]?.kid));
        return jwks;
      } finally {
        await store.release(CREATOR_LEASE, lease).catch(() => {});
      }
    }
    if (Date.now() > deadline) throw new Error(`no OAuth key set appeared in the state store within ${WAIT_LIMIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

const kidOf = (key: Record<string, unknown>) => String(key.kid);

/**
 * The stored set with `mine` joined to it: the stored signing key signs; every other key of
 * either set still in force is kept to verify, mine until `RETIRED_KEY_MS` from `now` when it
 * was my signing key. Stored keys come first, so a set already holding mine is returned as it is.
 */
export function joinKeySets(stored: Jwks, mine: Jwks, now: number): Jwks {
  const keys: Jwks['keys'] = [];
  const retired: Record<string, number> = {};
  const add = (key: Record<string, unknown>, until: number | undefined) => {
    if (keys.length >= MAX_KEYS || keys.some((kept) => kidOf(kept) === kidOf(key))) return;
    keys.push(key);
    if (keys.length > 1 && until !== undefined) retired[kidOf(key)] = until;
  };
  for (const set of [stored, mine]) {
    keysInForce(set, now).forEach((key, i) => add(key, i === 0 && set === mine ? now + RETIRED_KEY_MS : set.retired?.[kidOf(key)]));
  }
  return Object.keys(retired).length ? { keys, retired } : { keys };
}

/** Same keys, in the same order, retired until the same times. */
export function sameKeySet(a: Jwks, b: Jwks): boolean {
  return JSON.stringify([a.keys.map(kidOf), a.retired ?? {}]) === JSON.stringify([b.keys.map(kidOf), b.retired ?? {}]);
}

/**
 * What a comparison with Redis came to: the set to use (`stored` when this instance just wrote
 * it); `busy` when another instance is writing (compare again soon); `unreachable` when Redis did
 * not answer (the local fallback did); `foreign` when the entry was sealed under another master key.
 */
export type Reconciled = { jwks: Jwks; stored: boolean } | 'busy' | 'unreachable' | 'foreign';

/**
 * Compares `mine` with the stored set. None stored (Redis lost its data, or never had it): mine
 * is stored, set-if-absent under the lease. A different one: the stored set wins, and mine joins
 * it as keys that still verify (joinKeySets), so all instances publish the same keys and nothing
 * either side signed breaks. An entry under another master key is left alone (no tug of war).
 */
export async function reconcileShared(store: StateStore, masterKey: string, mine: Jwks, now: number): Promise<Reconciled> {
  // Only Redis's answer counts: a call that failed over to the local store says nothing shared.
  const fromRedis = async <T>(read: Promise<T>) => {
    const value = await read;
    return store.healthy ? value : null;
  };
  const found = await fromRedis(readShared(store, masterKey));
  if (!found) return 'unreachable';
  if (found.unreadable) return 'foreign';
  const wanted = found.jwks ? joinKeySets(found.jwks, mine, now) : joinKeySets(mine, { keys: [] }, now);
  if (found.jwks && sameKeySet(wanted, found.jwks)) return { jwks: found.jwks, stored: false };
  const lease = await store.acquire(CREATOR_LEASE, 1, LEASE_MS);
  if (!lease) return store.healthy ? 'busy' : 'unreachable';
  try {
    // Written only over what was read: an entry changed meanwhile is compared again first.
    const again = store.healthy ? await fromRedis(readShared(store, masterKey)) : null;
    if (!again) return 'unreachable';
    if (again.raw !== found.raw) return 'busy';
    await store.set(SHARED_KEYS_ENTRY, seal(masterKey, wanted));
    return store.healthy ? { jwks: wanted, stored: true } : 'unreachable';
  } finally {
    await store.release(CREATOR_LEASE, lease).catch(() => {});
  }
}
