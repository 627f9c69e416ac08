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
  const inner = createMemoryStore({ now: () => clock });
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

  it('with the defaults, uses a primary again within 30 s of its recovery after a 60 s outage (measured)', async () => {
    // Traffic every second; the fallback carries it while the primary's circuit is open.
    const measure = (outageS: number) => {
      const { breaker, advance, now } = setup(breakerDefaults);
      const recoversAt = now() + outageS * 1000;
      return (async () => {
        for (;;) {
          const check = await breaker.check('p/m');
          if (check.verdict !== 'open') {
            if (now() >= recoversAt) return (now() - recoversAt) / 1000;
            await breaker.failure('p/m');
          }
          advance(1000);
        }
      })();
    };
    const delays = await Promise.all([10, 30, 60, 120, 600].map(measure));
    // Seconds from recovery to the first call the primary serves again, for each outage length.
    for (const delay of delays) expect(delay).toBeLessThanOrEqual(21);
    expect(delays[2]).toBeLessThanOrEqual(30);
  });
});
