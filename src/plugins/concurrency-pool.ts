/**
 * A counting semaphore with a priority wait queue. When a slot frees, the waiter with the highest
 * priority gets it (ties: first come, first served). Waiting is bounded: a waiter that is not
 * admitted in time, or whose request is aborted, leaves the queue.
 */
import type { ClientSignal } from '../http/client-signal.ts';
export interface Waiter {
  priority: number;
  seq: number;
  admit(): void;
}

export class PriorityPool {
  active = 0;
  /** Current limit; read from the config on every acquire, so a reload applies at once. */
  max: number;
  private readonly waiting: Waiter[] = [];
  private seq = 0;

  constructor(max: number) {
    this.max = max;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Resolves with a release function once a slot is held. Rejects with `timeout` after
   * `timeoutMs`, or with the signal's reason on abort.
   */
  acquire(priority: number, timeoutMs: number, signal?: ClientSignal): Promise<() => void> {
    if (this.active < this.max && this.waiting.length === 0) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        priority,
        seq: this.seq++,
        admit: () => {
          cleanup();
          resolve(this.releaser());
        },
      };
      const leave = (error: Error) => {
        const index = this.waiting.indexOf(waiter);
        if (index < 0) return; // already admitted
        this.waiting.splice(index, 1);
        cleanup();
        reject(error);
      };
      const timer = setTimeout(() => leave(new PoolTimeoutError(timeoutMs)), timeoutMs);
      const onAbort = () => leave(new Error('request aborted while waiting for a slot'));
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      this.dispatch();
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.dispatch();
    };
  }

  private dispatch(): void {
    while (this.active < this.max && this.waiting.length) {
      let best = 0;
      for (let i = 1; i < this.waiting.length; i++) {
        const w = this.waiting[i]!;
        const b = this.waiting[best]!;
        if (w.priority > b.priority || (w.priority === b.priority && w.seq < b.seq)) best = i;
      }
      const [next] = this.waiting.splice(best, 1);
      this.active++;
      next!.admit();
    }
  }
}

export class PoolTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no slot within ${timeoutMs} ms`);
    this.name = 'PoolTimeoutError';
  }
}
