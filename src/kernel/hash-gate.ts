/**
 * Bounds the password hashes running at once. One scrypt at our parameters takes ~128 MiB and
 * ~380 ms on a libuv pool thread; unbounded, a burst of sign-ins takes the pool (file writes,
 * DNS lookups of upstreams wait behind it) and the memory. A few run, a bounded number wait in
 * order, and the rest are refused at once with 503, which costs nothing.
 */
import { serviceUnavailable } from './errors.ts';

export interface HashGate {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Hashes running now (for tests and health). */
  readonly running: number;
}

export function createHashGate(maxRunning: number, maxWaiting: number): HashGate {
  let running = 0;
  const waiting: Array<() => void> = [];
  return {
    get running() {
      return running;
    },
    async run(work) {
      if (running >= maxRunning) {
        if (waiting.length >= maxWaiting) throw serviceUnavailable('Too many sign-ins are being checked right now. Try again in a moment.', 'server_busy');
        await new Promise<void>((resume) => waiting.push(resume));
      } else {
        running++;
      }
      try {
        return await work();
      } finally {
        // Hand the slot straight to the next waiter (running stays the same), or free it.
        const next = waiting.shift();
        if (next) next();
        else running--;
      }
    },
  };
}
