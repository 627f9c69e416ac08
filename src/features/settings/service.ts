/**
 * Account settings (spec 2.6), persisted per account in the state store under
 * `gw:settings:<account>` (so every instance sharing Redis reads the same), with an in-process
 * cache on the hot path (the auth step reads settings on every call).
 *
 * What is stored is the account's own changes (a patch), merged over the gateway's `settings:`
 * defaults at read time: fields an account never set follow the configured defaults.
 *
 * An update reads, merges and writes the account's patch holding a lease on the account in the
 * state store (config/write/lease.ts), so two instances updating one account at once never lose
 * either change; within an instance, updates of an account also queue for it in turn.
 *
 * Cache coherence: a change is published on `gw:settings:changed`; every instance drops that
 * account's entry. Entries also expire after `cacheTtlMs`, bounding staleness if a message is
 * lost (for instance while Redis is down and the store has failed over to memory).
 *
 * A change of time zone moves the account's periodic key budgets onto the counters of the new
 * zone's periods: `onTimeZoneChange` carries their usage over (src/quota/zone-change.ts) before
 * the new zone is written, and its follow-up runs once the change is announced and once more when
 * no call can still count in the old zone.
 */
import type { SettingsReader } from '../../auth/account-policy.ts';
import type { AccountSettings } from '../../config/types.ts';
import { leaseBusy, withLease } from '../../config/write/lease.ts';
import type { Logger } from '../../pipeline/types.ts';
import type { StateStore } from '../../store/types.ts';
import { applyPatch, mergePatches, type SettingsPatch } from './validate.ts';

export const SETTINGS_CHANNEL = 'gw:settings:changed';
export const settingsKey = (accountId: string) => `gw:settings:${accountId}`;
/** Held by an update of the account, on every instance (outside `gw:settings:`, so never kept on disk). */
const lockKey = (accountId: string) => `gw:lock:settings:${accountId}`;

export interface SettingsService extends SettingsReader {
  /** Applies a validated patch; returns the whole resulting settings. */
  update(accountId: string, patch: SettingsPatch, defaults: AccountSettings): Promise<AccountSettings>;
  close(): Promise<void>;
}

interface Entry {
  patch: SettingsPatch;
  at: number;
}

export interface SettingsServiceOptions {
  /** How long an instance trusts its cached copy of an account's settings (default 30 s). */
  cacheTtlMs?: number;
  /**
   * Called when an update changes an account's time zone, before the new zone is written (nothing
   * counts in it yet). The follow-up it returns runs once the change is announced, and again
   * `lateFollowUpMs` later (default: the cache TTL), when no call can still count in the old zone.
   */
  onTimeZoneChange?: (accountId: string, from: string, to: string) => Promise<() => Promise<void>>;
  lateFollowUpMs?: number;
}

export async function createSettingsService(store: StateStore, logger: Logger, options: SettingsServiceOptions = {}): Promise<SettingsService> {
  const ttl = options.cacheTtlMs ?? 30_000;
  const lateMs = options.lateFollowUpMs ?? ttl;
  // The late follow-up of each account's last time zone change.
  const late = new Map<string, { timer: NodeJS.Timeout; run: () => Promise<void> }>();
  const cache = new Map<string, Entry>();
  // Coalesces concurrent misses for one account into one store read.
  const loading = new Map<string, Promise<SettingsPatch>>();
  // Serialises updates per account within this instance (read-modify-write of the patch).
  const writing = new Map<string, Promise<unknown>>();

  const unsubscribe = await store
    .subscribe(SETTINGS_CHANNEL, (accountId) => cache.delete(accountId))
    .catch((error) => {
      logger.warn('settings: no change notifications; relying on the cache TTL', { error: String(error) });
      return async () => {};
    });

  async function read(accountId: string): Promise<SettingsPatch> {
    const raw = await store.get(settingsKey(accountId));
    if (!raw) return {};
    try {
      return JSON.parse(raw) as SettingsPatch;
    } catch {
      logger.warn('settings: unreadable stored settings ignored', { account: accountId });
      return {};
    }
  }

  async function patchOf(accountId: string): Promise<SettingsPatch> {
    const hit = cache.get(accountId);
    if (hit && Date.now() - hit.at < ttl) return hit.patch;
    let pending = loading.get(accountId);
    if (!pending) {
      pending = read(accountId)
        .then((patch) => {
          cache.set(accountId, { patch, at: Date.now() });
          return patch;
        })
        .finally(() => loading.delete(accountId));
      loading.set(accountId, pending);
    }
    return pending;
  }

  function followUpLater(accountId: string, followUp: () => Promise<void>): Promise<void> {
    const run = () => followUp().catch((error: unknown) => {
      logger.warn('settings: quota usage not carried to the new time zone', { account: accountId, error: String(error) });
    });
    const timer = setTimeout(() => {
      late.delete(accountId);
      void run();
    }, lateMs);
    timer.unref();
    late.set(accountId, { timer, run });
    return run();
  }

  /** Carries quota usage before the new zone is written; returns the follow-up, if any. */
  async function zoneChanging(accountId: string, from: string, to: string) {
    if (from === to || !options.onTimeZoneChange) return undefined;
    // An earlier change's late follow-up runs now, not after this carry, which it would count again.
    const pending = late.get(accountId);
    if (pending) {
      clearTimeout(pending.timer);
      late.delete(accountId);
      await pending.run();
    }
    return options.onTimeZoneChange(accountId, from, to);
  }

  return {
    async get(accountId, defaults) {
      const patch = await patchOf(accountId);
      return Object.keys(patch).length ? applyPatch(defaults, patch) : defaults;
    },

    update(accountId, patch, defaults) {
      const previous = writing.get(accountId) ?? Promise.resolve();
      const next = previous.catch(() => {}).then(() => withLease(store, lockKey(accountId), async (lease) => {
        const stored = await read(accountId);
        const merged = mergePatches(stored, patch);
        const result = applyPatch(defaults, merged);
        const followUp = await zoneChanging(accountId, applyPatch(defaults, stored).account.timezone, result.account.timezone);
        // A holder that stalled past its lease may have been overtaken: it must not write over that.
        if (!(await lease.confirm())) throw leaseBusy('these settings');
        await store.set(settingsKey(accountId), JSON.stringify(merged));
        cache.set(accountId, { patch: merged, at: Date.now() });
        await store.publish(SETTINGS_CHANNEL, accountId).catch((error) => {
          logger.warn('settings: change not announced', { account: accountId, error: String(error) });
        });
        if (followUp) await followUpLater(accountId, followUp);
        return result;
      }, { what: 'these settings' }));
      writing.set(accountId, next);
      void next.finally(() => {
        if (writing.get(accountId) === next) writing.delete(accountId);
      }).catch(() => {});
      return next;
    },

    async close() {
      for (const { timer } of late.values()) clearTimeout(timer);
      late.clear();
      await unsubscribe();
      cache.clear();
    },
  };
}
