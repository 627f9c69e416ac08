/**
 * Streaming time to first byte: how long from sending a `stream: true` request until the first
 * `data:` event arrives. autocannon only times whole answers, hence this small undici sampler.
 * Every answer is read to its end, so connections are reused as a real client would.
 */
import { Pool } from 'undici';
import { summarize, type Summary } from './percentile.ts';
import { requestBody, type Target } from './targets.ts';

export interface TtfbResult extends Summary {
  failures: number;
}

/** One streamed request: milliseconds to the first `data:` chunk, or null when it failed. */
async function sample(pool: Pool, target: Target, path: string, body: string): Promise<number | null> {
  const sent = performance.now();
  const response = await pool.request({ method: 'POST', path, headers: target.headers, body });
  let first: number | null = null;
  let seen = '';
  for await (const chunk of response.body) {
    if (first === null) {
      seen += chunk.toString('utf8');
      if (seen.includes('data:')) first = performance.now() - sent;
    }
  }
  if (response.statusCode !== 200 || !seen.includes('data:')) return null;
  return first;
}

export interface Sampler {
  /** Sequential samples, interleaved across `among` (all targets by default) so drift hits them alike. */
  sequential(rounds: number, among?: Target[]): Promise<Map<string, TtfbResult>>;
  /** `concurrency` streams at a time against one target, `count` in all. */
  concurrent(target: Target, count: number, concurrency: number): Promise<TtfbResult>;
  close(): Promise<void>;
}

export function ttfbSampler(targets: Target[]): Sampler {
  const pools = new Map(targets.map((t) => [t.name, new Pool(new URL(t.url).origin, { connections: 64, pipelining: 1 })]));
  const path = (t: Target) => new URL(t.url).pathname;
  const body = requestBody(true);
  const safeSample = (t: Target) => sample(pools.get(t.name)!, t, path(t), body).catch(() => null);
  const result = (values: Array<number | null>): TtfbResult => {
    const ok = values.filter((v): v is number => v !== null);
    return { ...summarize(ok), failures: values.length - ok.length };
  };
  return {
    async sequential(rounds, among = targets) {
      const values = new Map<string, Array<number | null>>(among.map((t) => [t.name, []]));
      for (let i = 0; i < rounds; i++) for (const t of among) values.get(t.name)!.push(await safeSample(t));
      return new Map([...values].map(([name, list]) => [name, result(list)]));
    },
    async concurrent(t, count, concurrency) {
      const values: Array<number | null> = [];
      let next = 0;
      const worker = async () => {
        while (next++ < count) values.push(await safeSample(t));
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      return result(values);
    },
    async close() {
      await Promise.all([...pools.values()].map((p) => p.close()));
    },
  };
}
