/**
 * A background job run on a timer: a first pass shortly after start, then every interval,
 * never two passes at once, timers unref'd so the job never holds the process open.
 */
export interface PeriodicJob {
  /** Resolves once a pass in progress (if any) has finished. */
  stop(): Promise<void>;
}

export function startPeriodic(run: () => Promise<unknown>, options: { intervalMs: number; firstDelayMs: number; onError(error: unknown): void }): PeriodicJob {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped || running) return;
    running = run()
      .catch(options.onError)
      .finally(() => (running = undefined));
  };
  const first = setTimeout(tick, Math.min(options.intervalMs, options.firstDelayMs));
  first.unref();
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
