/**
 * Closed-loop streaming load: `concurrency` clients, each sending a `stream: true` chat request,
 * reading its SSE body to the end (`data: [DONE]`), then sending the next. Gives the streams
 * completed per second and the time to the first `data:` event under that load.
 * autocannon cannot read an SSE body to its end, hence undici in the bench process; the body is
 * looked at only where it matters (its first chunks and its end) to keep the generator cheap
 * (~65 µs of its CPU per stream against the mock; a bare dispatch handler saved only ~10 %).
 */
import { Pool } from 'undici';
import { summarize, type Summary } from './percentile.ts';
import { requestBody, type Target } from './targets.ts';

export interface StreamLoadResult {
  /** Streams read to `data: [DONE]` per second of the measured window. */
  streamsPerSecond: number;
  /** Send to first `data:` event (ms), over the streams sent in the measured window. */
  firstByte: Summary;
  /** Non-200 answers, errors and streams that ended without `data: [DONE]`. */
  failures: number;
}

interface StreamTiming {
  firstByteMs: number;
  complete: boolean;
}

/** One streamed request read to its end. */
async function oneStream(pool: Pool, path: string, headers: Record<string, string>, body: string): Promise<StreamTiming> {
  const sent = performance.now();
  const response = await pool.request({ method: 'POST', path, headers, body });
  let firstByteMs = NaN;
  let head = '';
  let previous: Buffer | null = null;
  let last: Buffer | null = null;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    if (Number.isNaN(firstByteMs)) {
      head += chunk.toString('utf8'); // until the first event: `data:` may straddle two chunks
      if (head.includes('data:')) firstByteMs = performance.now() - sent;
    }
    previous = last;
    last = chunk;
  }
  // `[DONE]` is in the last chunk, or split between the last two.
  const tail = last === null ? Buffer.alloc(0) : previous === null ? last : Buffer.concat([previous, last]);
  return { firstByteMs, complete: response.statusCode === 200 && tail.includes('data: [DONE]') };
}

export async function streamLoad(target: Target, options: { concurrency: number; warmupSeconds: number; seconds: number }): Promise<StreamLoadResult> {
  const url = new URL(target.url);
  const pool = new Pool(url.origin, { connections: options.concurrency, pipelining: 1 });
  const body = requestBody(true);
  const windowStart = performance.now() + options.warmupSeconds * 1000;
  const windowEnd = windowStart + options.seconds * 1000;
  const firstBytes: number[] = [];
  let completed = 0;
  let failures = 0;
  let sentCount = 0;

  const client = async () => {
    while (performance.now() < windowEnd) {
      const sent = performance.now();
      const headers = target.headerSets ? target.headerSets[sentCount++ % target.headerSets.length]! : target.headers;
      const timing = await oneStream(pool, url.pathname, headers, body).catch(() => null);
      const ended = performance.now();
      if (timing === null || !timing.complete) {
        failures++;
        continue;
      }
      // Throughput counts what ended inside the window (steady state at both edges); the first
      // byte is timed on what was sent inside it (after the warm-up's JIT and connection setup).
      if (ended >= windowStart && ended <= windowEnd) completed++;
      if (sent >= windowStart) firstBytes.push(timing.firstByteMs);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  await pool.close();
  return { streamsPerSecond: completed / options.seconds, firstByte: summarize(firstBytes), failures };
}
