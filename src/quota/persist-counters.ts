/**
 * Names of the key usage counters, and the persistence of every counter (usage, and budgets of
 * the current period, see src/quota) when the store is the in-process one: saved to
 * `<GATEWAY_DATA_DIR>/counters.json` every few seconds and at shutdown, and loaded at start, so
 * quotas survive restarts without Redis. (With Redis the counters live in Redis, which persists
 * them itself.) A saved counter of a period that has ended is loaded but never read again.
 */
import { readFile } from 'node:fs/promises';
import { makePrivateDir } from '../kernel/private-files.ts';
import path from 'node:path';
import type { Logger } from '../kernel/logger.ts';
import type { Runtime } from '../pipeline/runtime.ts';
import { accountTimeZone } from '../auth/account-policy.ts';
import { groupBudget, keyBudget, providerBudget } from './budgets.ts';
import { writeFileAtomic } from '../config/write/atomic-write.ts';

/** Requests / tokens of an API key (incremented by the log step). */
export const keyUsageKeys = (id: string) => [`gw:usage:key:${id}:requests`, `gw:usage:key:${id}:tokens`] as const;

/** Every counter worth saving: key usage and the current period's budget counters. */
async function knownKeys(runtime: Runtime): Promise<string[]> {
  const snapshot = runtime.current();
  const { config } = snapshot;
  const now = Date.now();
  const budgeted = config.keys.filter((k) => k.permissions.quota_limit > 0);
  const keyBudgets = await Promise.all(budgeted.map(async (k) => keyBudget(k, await accountTimeZone(runtime, k.account), now)));
  return [
    ...config.groups.map((g) => groupBudget(g, snapshot, now).counter.key),
    ...config.providers.map((p) => providerBudget(p, snapshot, now).counter.key),
    ...keyBudgets.map((b) => b.counter.key),
    ...config.keys.flatMap((k) => keyUsageKeys(k.id)),
  ];
}

export interface CounterPersistence {
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** Loads saved counters into a fresh memory store and saves them periodically; a no-op with Redis. */
export async function persistCounters(runtime: Runtime, logger: Logger, intervalMs = 5000): Promise<CounterPersistence> {
  if (runtime.store.kind !== 'memory') return { flush: async () => {}, close: async () => {} };
  const file = path.join(runtime.dataDir, 'counters.json');
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as Record<string, number>;
    const keys = Object.keys(saved);
    const current = await runtime.store.getCounters(keys);
    await Promise.all(keys.map((key, i) => (Number.isSafeInteger(saved[key]) ? runtime.store.incrBy(key, saved[key]! - current[i]!) : undefined)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') logger.warn('could not load saved counters', { file, error: String(error) });
  }
  let last = '';
  async function flush(): Promise<void> {
    const keys = await knownKeys(runtime);
    const values = await runtime.store.getCounters(keys);
    const data = Object.fromEntries(keys.map((key, i) => [key, values[i]!]).filter(([, v]) => v !== 0));
    const text = `${JSON.stringify(data, null, 1)}\n`;
    if (text === last) return;
    await makePrivateDir(runtime.dataDir);
    await writeFileAtomic(file, text, 0o600);
    last = text;
  }
  const timer = setInterval(() => void flush().catch((error) => logger.warn('could not save counters', { error: String(error) })), intervalMs);
  timer.unref();
  return {
    flush,
    async close() {
      clearInterval(timer);
      await flush().catch((error) => logger.warn('could not save counters', { error: String(error) }));
    },
  };
}
