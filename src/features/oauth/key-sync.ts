/**
 * Keeps the instances on one Redis on one OAuth key set while they run. An instance can hold a
 * set of its own: it started while Redis was unreachable (its key file's set), or Redis lost the
 * shared entry (a restart without persistence, a FLUSH) and another instance stored new keys. So
 * each instance compares its set with the stored one (reconcileShared) when Redis comes back, when
 * another instance announces that it stored a set, and every `checkEveryMs` in any case (a
 * reconnect can be too quick to notice, a FLUSH has none): it stores its set when none is, and
 * adopts the stored one when it differs, keeping its own signing key in the shared set as a key
 * that still verifies (ID tokens, cookies).
 *
 * oidc-provider reads `jwks` and the cookie keys once, when it is built (its maintainers' advice
 * for new keys is a new Provider), so a change of keys is told to `onChange`, which builds the
 * next provider with them (provider-handle.ts).
 */
import type { Logger } from '../../kernel/logger.ts';
import { startPeriodic } from '../../kernel/periodic.ts';
import type { StateStore } from '../../store/types.ts';
import { keysInForce, toKeys, type Jwks, type OAuthKeys } from './keys.ts';
import { reconcileShared, SHARED_KEYS_CHANNEL } from './shared-keys.ts';

export interface KeySyncOptions {
  store: StateStore;
  masterKey: string;
  logger: Logger;
  /** The set this instance starts with (loadOAuthKeys). */
  initial: Jwks;
  /** Told the new keys when the keys in force change. */
  onChange(keys: OAuthKeys): void;
  /** The routine comparison with Redis (default 5 s): one GET when nothing changed. */
  checkEveryMs?: number;
  /** How often the loop looks for a reconnect, an announcement or an expired key (default 500 ms; no I/O). */
  tickMs?: number;
  now?: () => number;
}

export interface KeySync {
  /** The keys in force now. */
  current(): OAuthKeys;
  /** Stops the loop (waits for a comparison in progress). */
  stop(): Promise<void>;
}

const kids = (keys: Jwks['keys']) => keys.map((key) => String(key.kid)).join(' ');

/**
 * Starts the comparisons with the shared set; the first one runs at the first tick.
 * @example const sync = startKeySync({ store, masterKey, logger, initial, onChange: () => provider.renew() });
 */
export function startKeySync(options: KeySyncOptions): KeySync {
  const { store, masterKey, logger } = options;
  const checkEveryMs = options.checkEveryMs ?? 5000;
  const now = options.now ?? (() => Date.now());
  let mine = options.initial;
  let keys = toKeys(mine, now());
  let due = 0;
  let wasHealthy = store.healthy;
  let warnedForeign = false;
  let stopped = false;

  /** Takes `next` as this instance's set; the provider is rebuilt when the keys in force change. */
  function use(next: Jwks): void {
    const before = keys.jwks.keys;
    mine = next;
    const inForce = keysInForce(mine, now());
    if (kids(inForce) === kids(before)) return;
    keys = toKeys(mine, now());
    const fields = { signing_kid: String(inForce[0]?.kid), kids: inForce.map((key) => String(key.kid)) };
    if (inForce[0]?.kid !== before[0]?.kid) logger.warn('OAuth keys: now signing with the key set shared through Redis (the previous key still verifies)', fields);
    else logger.info('OAuth keys: the keys that verify changed', fields);
    options.onChange(keys);
  }

  async function tick(): Promise<void> {
    const healthy = store.healthy;
    // Back from an outage (or connected for the first time): compare at once.
    if (healthy && !wasHealthy) due = 0;
    wasHealthy = healthy;
    if (!healthy || now() < due) return use(mine); // a retired key may have run out
    due = now() + checkEveryMs;
    const outcome = await reconcileShared(store, masterKey, mine, now());
    if (outcome === 'busy') due = 0;
    else if (outcome === 'foreign') {
      if (!warnedForeign) logger.warn('the shared OAuth keys are sealed under another GATEWAY_MASTER_KEY: keeping this instance\'s keys (instances must share one master key)');
      warnedForeign = true;
    } else if (outcome !== 'unreachable') {
      warnedForeign = false;
      use(outcome.jwks);
      if (outcome.stored) await store.publish(SHARED_KEYS_CHANNEL, String(outcome.jwks.keys[0]?.kid));
    }
  }

  const job = startPeriodic(tick, {
    intervalMs: options.tickMs ?? 500,
    firstDelayMs: 0,
    onError: (error) => logger.warn('could not compare the OAuth keys with the shared set', { error: String(error) }),
  });
  // Not awaited: a hung Redis must not hold the start (it delivers on reconnect, or never).
  let unsubscribe: (() => Promise<void>) | undefined;
  store.subscribe(SHARED_KEYS_CHANNEL, () => void (due = 0)).then(
    (stop) => (stopped ? void stop().catch(() => {}) : (unsubscribe = stop)),
    (error: unknown) => logger.warn('could not listen for changes of the shared OAuth keys', { error: String(error) }),
  );

  return {
    current: () => keys,
    async stop() {
      stopped = true;
      await job.stop();
      await unsubscribe?.();
    },
  };
}
