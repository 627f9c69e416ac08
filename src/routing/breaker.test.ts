import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../store/memory.ts';
import type { StateStore } from '../store/types.ts';
import { createBreaker, type BreakerVerdict } from './breaker.ts';

function setup() {
  let clock = 1_000_000;
  const inner = createMemoryStore();
  const ops: string[] = [];
  // Count round trips, to hold the breaker to one read per attempt and writes only on change.
  const store: StateStore = Object.assign(Object.create(inner), {
    get: (key: string) => (ops.push('get'), inner.get(key)),
    set: (key: string, value: string, ttl?: number) => (ops.push('set'), inner.set(key, value, ttl)),
    del: (key: string) => (ops.push('del'), inner.del(key)),
  });
  const breaker = createBreaker(store, { failure_threshold: 3, cooldown_ms: 1000, max_cooldown_ms: 3000 }, () => clock);
  return { breaker, ops, advance: (ms: number) => (clock += ms) };
}

const allowed = (v: BreakerVerdict) => v.allowed;

async function fail(breaker: ReturnType<typeof createBreaker>, deployment = 'p/m') {
  const verdict = await breaker.check(deployment);
  if (!verdict.allowed) throw new Error('skipped');
  await breaker.failure(deployment, verdict.state);
}

describe('circuit breaker', () => {
  it('opens after N consecutive failures, skips for the cooldown, probes once, closes on success', async () => {
    const { breaker, advance } = setup();
    await fail(breaker);
    await fail(breaker);
    expect(allowed(await breaker.check('p/m'))).toBe(true);
    await fail(breaker);
    const open = await breaker.check('p/m');
    expect(open).toEqual({ allowed: false, retryInMs: 1000 });
    expect(allowed(await breaker.check('p/other'))).toBe(true); // another model of the provider is unaffected
    advance(1000);
    const probe = await breaker.check('p/m');
    expect(probe).toMatchObject({ allowed: true, probe: true });
    expect(allowed(await breaker.check('p/m'))).toBe(false); // only one probe at a time
    if (!probe.allowed) throw new Error('unreachable');
    await breaker.success('p/m', probe.state);
    expect(await breaker.check('p/m')).toEqual({ allowed: true, state: null, probe: false });
  });

  it('doubles the cooldown while probes keep failing, up to the cap', async () => {
    const { breaker, advance } = setup();
    for (let i = 0; i < 3; i++) await fail(breaker);
    const waits: number[] = [];
    for (let round = 0; round < 3; round++) {
      const verdict = await breaker.check('p/m');
      if (verdict.allowed) throw new Error('should be open');
      waits.push(verdict.retryInMs);
      advance(verdict.retryInMs);
      await fail(breaker); // the probe fails
    }
    expect(waits).toEqual([1000, 2000, 3000]);
  });

  it('resets the count on success, so failures must be consecutive', async () => {
    const { breaker } = setup();
    await fail(breaker);
    await fail(breaker);
    const verdict = await breaker.check('p/m');
    if (!verdict.allowed) throw new Error('unreachable');
    await breaker.success('p/m', verdict.state);
    await fail(breaker);
    await fail(breaker);
    expect(allowed(await breaker.check('p/m'))).toBe(true);
  });

  it('costs one GET per healthy attempt and no write', async () => {
    const { breaker, ops } = setup();
    const verdict = await breaker.check('p/m');
    if (!verdict.allowed) throw new Error('unreachable');
    await breaker.success('p/m', verdict.state);
    expect(ops).toEqual(['get']);
  });
});
