/**
 * Closed-loop maximum throughput with autocannon: `connections` clients, each sending the next
 * request as soon as the previous answer ends. Latencies are taken from autocannon's per-response
 * event (float ms): its own histogram rounds to whole milliseconds.
 */
import autocannon from 'autocannon';
import { summarize, type Summary } from './percentile.ts';
import { requestBody, type Target } from './targets.ts';

export interface LoadResult extends Summary {
  /** Successful (2xx) answers per second. */
  rps: number;
  /** Non-2xx answers, socket errors and timeouts. */
  failures: number;
}

export async function autocannonRun(target: Target, options: { connections: number; seconds: number; overallRate?: number }): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const instance = autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: requestBody(false),
    // Each connection sends these in turn: every key of a many-key target calls.
    requests: target.headerSets?.map((headers) => ({ method: 'POST', headers, body: requestBody(false) })),
    connections: options.connections,
    duration: options.seconds,
    overallRate: options.overallRate,
    timeout: 10,
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
    else failures++;
  });
  const result = await instance;
  const seconds = (performance.now() - started) / 1000;
  failures += result.errors; // socket errors, timeouts included
  return { ...summarize(latencies), rps: latencies.length / seconds, failures };
}
