import type { ClientSignal } from '../http/client-signal.ts';

/** Exponential backoff with full jitter in [delay/2, delay], capped. */
export function backoffDelay(retry: number, baseMs: number, maxMs: number, random = Math.random): number {
  const delay = Math.min(maxMs, baseMs * 2 ** retry);
  return Math.round(delay / 2 + (random() * delay) / 2);
}

/** Resolve after `ms`, or reject early when the signal aborts. */
export function sleep(ms: number, signal?: ClientSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
