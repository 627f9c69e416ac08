import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../store/memory.ts';
import type { StateStore } from '../store/types.ts';
import { createBreaker } from './breaker.ts';
import schema from '../../schemas/gateway.schema.json' with { type: 'json' };

/** The shipped defaults, read from the schema so the measurement follows any change to them. */
const breakerDefaults = Object.fromEntries(
  Object.entries(schema.properties.routing.properties.breaker.properties).map(([name, field]) => [name, field.default]),
) as { failure_threshold: number; cooldown_ms: number; max_cooldown_ms: number };

function setup(config = { failure_threshold: 3, cooldown_ms: 1000, max_cooldown_ms: 3000 }) {
  let clock = 1_000_000;
  const inner = createMemoryStore({ now: () => clock, maxEntries: 100 });
  const ops: string[] = [];
  // Count store steps, to hold the breaker to one per attempt and writes only on change.
  const store: StateStore = Object.assign(Object.create(inner), {
    circuitCheck: (...args: Parameters<StateStore['circuitCheck']>) => (ops.push('check'), inner.circuitCheck(...args)),
    circuitFailure: (...args: Parameters<StateStore['circuitFailure']>) => (ops.push('failure'), inner.circuitFailure(...args)),
    del: (key: string) => (ops.push('del'), inner.del(key)),
  });
  const breaker = createBreaker(store, config);
  return { breaker, ops, advance: (ms: number) => (clock += ms), now: () => clock };
}

async function fail(breaker: ReturnType<typeof createBreaker>, deployment = 'p/m') {
  const check = await breaker.check(deployment);
  if (check.verdict === 'open') throw new Error('skipped');
  await breaker.failure(deployment);
}

describe('circuit breaker', () => {
  it('opens after N consecutive failures, skips for the cooldown, probes once, closes on success', async () => {
    const { breaker, advance } = setup();
    await fail(breaker);
    await fail(breaker);
    expect((await breaker.check('p/m')).verdict).toBe('closed');
    await fail(breaker);
    expect(await breaker.check('p/m')).toEqual({ verdict: 'open', failures: 3, retryInMs: 1000 });
    expect((await breaker.check('p/other')).verdict).toBe('closed'); // another model of the provider is unaffected
    advance(1000);
    const probe = await breaker.check('p/m');
    expect(probe.verdict).toBe('probe');
    expect((await breaker.check('p/m')).verdict).toBe('open'); // only one probe at a time
    await breaker.success('p/m', probe);
    expect(await breaker.check('p/m')).toEqual({ verdict: 'closed', failures: 0, retryInMs: 0 });
  });

  it('doubles the cooldown while probes keep failing, up to the cap', async () => {
    const { breaker, advance } = setup();
    for (let i = 0; i < 3; i++) await fail(breaker);
    const waits: number[] = [];
    for (let round = 0; round < 3; round++) {
      const check = await breaker.check('p/m');
      if (check.verdict !== 'open') throw new Error('should be open');
      waits.push(check.retryInMs);
      advance(check.retryInMs);
      await fail(breaker); // the probe fails
    }
    expect(waits).toEqual([1000, 2000, 3000]);
  });

  it('resets the count on success, so failures must be consecutive', async () => {
    const { breaker } = setup();
    await fail(breaker);
    await fail(breaker);
    await breaker.success('p/m', await breaker.check('p/m'));
    await fail(breaker);
    await fail(breaker);
    expect((await breaker.check('p/m')).verdict).toBe('closed');
  });

  it('counts concurrent failures without losing one (one atomic step each)', async () => {
    const { breaker } = setup({ failure_threshold: 50, cooldown_ms: 1000, max_cooldown_ms: 3000 });
    await Promise.all(Array.from({ length: 49 }, () => breaker.failure('p/m')));
    expect(await breaker.check('p/m')).toMatchObject({ verdict: 'closed', failures: 49 });
    await breaker.failure('p/m');
    expect((await breaker.check('p/m')).verdict).toBe('open');
  });

  it('does not lengthen the open period for failures of calls sent while it is open', async () => {
    const { breaker } = setup();
    for (let i = 0; i < 3; i++) await fail(breaker);
    for (let i = 0; i < 5; i++) await breaker.failure('p/m');
    expect(await breaker.check('p/m')).toMatchObject({ verdict: 'open', retryInMs: 1000 });
  });

  it('costs one store step per healthy attempt and no write', async () => {
    const { breaker, ops } = setup();
    await breaker.success('p/m', await breaker.check('p/m'));
    expect(ops).toEqual(['check']);
  });

  it('with the defaults, uses a recovered primary again within 30 s, whatever the outage (measured)', async () => {
    /** Seconds from recovery to the primary's first served call, for an outage of `outageS` with a call every second. */
    async function reuseDelay(config: typeof breakerDefaults, outageS: number) {
      const { breaker, advance, now } = setup(config);
      const recoversAt = now() + outageS * 1000;
      for (;;) {
        const check = await breaker.check('p/m');
        if (check.verdict !== 'open') {
          if (now() >= recoversAt) return (now() - recoversAt) / 1000;
          await breaker.failure('p/m'); // the fallback carries this call
        }
        advance(1000);
      }
    }
    const worst = async (config: typeof breakerDefaults) => {
      let max = 0;
      for (let outageS = 1; outageS <= 300; outageS++) max = Math.max(max, await reuseDelay(config, outageS));
      return max;
    };
    // The open period caps at max_cooldown_ms: a probe that fails just before the recovery is the worst case.
    expect(await reuseDelay(breakerDefaults, 60)).toBeLessThanOrEqual(30);
    expect(await worst(breakerDefaults)).toBe(breakerDefaults.max_cooldown_ms / 1000 - 1); // 19 s with the 20 s cap
    // The former 60 s cap left a primary recovered after an 80 s outage unused for 59 s.
    expect(await worst({ ...breakerDefaults, max_cooldown_ms: 60_000 })).toBe(59);
  });
});
