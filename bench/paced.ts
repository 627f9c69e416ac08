/**
 * Open-loop fixed-rate load: one request every 1/rate seconds whatever the answers do, each
 * timed from its own send to the end of its answer. autocannon's `overallRate` instead lets every
 * connection send its share of a second back to back and then wait for the next second, so its
 * "500 requests/s" is a burst at the start of each second (reported separately as `-R`).
 */
import { Pool } from 'undici';
import { summarize } from './percentile.ts';
import { requestBody, type Target } from './targets.ts';
import type { LoadResult } from './throughput.ts';

/** A paced run's figures, with its samples kept so that several runs can be pooled. */
export interface PacedResult extends LoadResult {
  latencies: number[];
}

/** Pools interleaved rounds of the same target into one result (percentiles over all samples). */
export function pooled(rounds: PacedResult[]): PacedResult {
  const latencies = rounds.flatMap((r) => r.latencies);
  const rps = rounds.reduce((sum, r) => sum + r.rps, 0) / (rounds.length || 1);
  return { ...summarize(latencies), rps, failures: rounds.reduce((sum, r) => sum + r.failures, 0), latencies };
}

export async function pacedRun(target: Target, options: { rate: number; seconds: number }): Promise<PacedResult> {
  const url = new URL(target.url);
  const pool = new Pool(url.origin, { connections: 128, pipelining: 1, keepAliveTimeout: 30_000 });
  const body = requestBody(false);
  const latencies: number[] = [];
  let failures = 0;
  const inFlight = new Set<Promise<void>>();

  const send = () => {
    const sent = performance.now();
    const done = pool
      .request({ method: 'POST', path: url.pathname, headers: target.headers, body })
      .then(async (response) => {
        await response.body.arrayBuffer();
        if (response.statusCode >= 200 && response.statusCode < 300) latencies.push(performance.now() - sent);
        else failures++;
      })
      .catch(() => void failures++)
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  };

  const total = Math.round(options.rate * options.seconds);
  const interval = 1000 / options.rate;
  const start = performance.now();
  let issued = 0;
  // Catch up on every timer tick with as many sends as the schedule says are due by now.
  while (issued < total) {
    const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
    while (issued < due) {
      send();
      issued++;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - start) / 1000;
  await pool.close();
  return { ...summarize(latencies), rps: latencies.length / seconds, failures, latencies };
}
