/**
 * A lease held across every instance sharing the state store: one holder at a time in the whole
 * cluster, where the queue of mutex.ts orders one process only. Taken by "set if absent" with a
 * random token and an expiry, so a holder that crashes frees it after `ttlMs`; renewed every third
 * of that while held; released by compare-and-delete, so a holder whose lease ran out never frees
 * the next holder's. A caller that cannot take it within `waitMs` gets 503 with Retry-After.
 */
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../kernel/errors.ts';
import type { StateStore } from '../../store/types.ts';

export interface LeaseOptions {
  /** How long a lease lasts unless renewed: what a crashed holder costs the others (default 15 s). */
  ttlMs?: number;
  /** How long a caller keeps trying before the 503 (default 10 s). */
  waitMs?: number;
  /** Pause between tries, plus as much again at random so waiters do not retry in step (default 20 ms). */
  retryMs?: number;
  /** What the holder changes, named in the 503 ("the configuration"). */
  what: string;
}

/** The lease as its holder sees it. */
export interface Lease {
  /**
   * Renews the lease and tells whether it is still held. False once it expired (a holder stalled
   * longer than `ttlMs`): another caller may hold it now, so the holder must not make its change.
   */
  confirm(): Promise<boolean>;
}

/** The 503 for a change that could not start: another holder kept the lease too long. */
export function leaseBusy(what: string): GatewayError {
  return new GatewayError(503, 'server_error', `Another change to ${what} is in progress on another instance; retry in a moment.`, {
    code: 'change_in_progress',
    headers: { 'retry-after': '1' },
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `task` holding the lease `key`, then releases it (whatever the task's outcome).
 * @example await withLease(store, 'gw:lock:config', async (lease) => { ...; if (!(await lease.confirm())) throw leaseBusy(what); ... }, { what: 'the configuration' });
 */
export async function withLease<T>(store: StateStore, key: string, task: (lease: Lease) => Promise<T>, options: LeaseOptions): Promise<T> {
  const ttlMs = options.ttlMs ?? 15_000;
  const retryMs = options.retryMs ?? 20;
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  const token = randomUUID();
  while (!(await store.compareAndSet(key, null, token, ttlMs))) {
    const left = deadline - Date.now();
    if (left <= 0) throw leaseBusy(options.what);
    await sleep(Math.min(left, retryMs + Math.random() * retryMs));
  }
  let lost = false;
  async function renew(): Promise<boolean> {
    if (!lost && !(await store.compareAndSet(key, token, token, ttlMs))) lost = true;
    return !lost;
  }
  // A failed renewal (the store briefly unreachable) is tried again at the next tick.
  const timer = setInterval(() => void renew().catch(() => {}), ttlMs / 3);
  timer.unref();
  try {
    return await task({ confirm: () => renew().catch(() => false) });
  } finally {
    clearInterval(timer);
    await store.compareAndSet(key, token, null).catch(() => {});
  }
}
