/**
 * The OAuth key set shared by the instances of one Redis: one state-store entry, sealed with
 * AES-256-GCM under a key derived from GATEWAY_MASTER_KEY (the sealing of the shared config,
 * config-sync.ts), so Redis never holds the private key in clear. The first instance stores its
 * key set; the others read it. Instances starting together elect the creator with a lease, the
 * store's atomic take-if-free, so they never store two different sets.
 */
import { openConfig as openSealed, sealConfig } from '../../config/write/config-sync.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { StateStore } from '../../store/types.ts';
import type { Jwks } from './keys.ts';

/** The sealed key set (the store adds its prefix). */
export const SHARED_KEYS_ENTRY = 'gw:oauth:jwks';
const CREATOR_LEASE = 'gw:oauth:jwks-creator';
/** Bound as associated data: a sealed config entry can never pass for a key set. */
const SEAL_VERSION = 'oauth-jwks-v1';
/** A creator that died holding the lease frees it after this long. */
const LEASE_MS = 15_000;
const POLL_MS = 100;
const WAIT_LIMIT_MS = 60_000;

type Read = { jwks: Jwks } | { jwks: null; unreadable: boolean };

async function readShared(store: StateStore, masterKey: string): Promise<Read> {
  const sealed = await store.get(SHARED_KEYS_ENTRY);
  if (!sealed) return { jwks: null, unreadable: false };
  const opened = openSealed(masterKey, sealed);
  if (!opened || opened.version !== SEAL_VERSION) return { jwks: null, unreadable: true };
  return { jwks: JSON.parse(opened.content.text) as Jwks };
}

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
        await store.set(SHARED_KEYS_ENTRY, sealConfig(masterKey, SEAL_VERSION, { text: JSON.stringify(jwks), secrets: {} }));
        return jwks;
      } finally {
        await store.release(CREATOR_LEASE, lease).catch(() => {});
      }
    }
    if (Date.now() > deadline) throw new Error(`no OAuth key set appeared in the state store within ${WAIT_LIMIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
