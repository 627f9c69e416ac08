import { describe, expect, it, vi } from 'vitest';
import { createTestContext, testConfig, testRuntime } from '../pipeline/test-context.ts';
import type { ProviderAdapter, Target } from '../providers/types.ts';
import { httpAttemptError } from './attempt-error.ts';
import type { AttemptInput } from './call.ts';
import { hedgePointMs } from './hedge-point.ts';
import { LatencyBook, latencyBook } from './latency.ts';
import { timeoutsFor } from './timeouts.ts';
import { breakerFor, tryTargets } from './try-targets.ts';

function setup(routing = '', hedge = '{ after_ms: 20 }') {
  const config = testConfig(`providers:
  - { id: slow, name: Slow, type: compat, endpoint: 'http://slow.test', models: [m] }
  - { id: good, name: Good, type: compat, endpoint: 'http://good.test', models: [m] }
routing:
  retries: 2
  backoff_ms: 1
  hedge: ${hedge}
${routing}`);
  const runtime = { ...testRuntime(config), adapters: { get: () => ({}) as ProviderAdapter } };
  const ctx = createTestContext({ model: 'slow/m' }, runtime);
  const target = (id: string): Target => ({ provider: runtime.current().providers.get(id)!, upstreamModel: 'm', requestedAs: `${id}/m` });
  return { ctx, targets: ['slow', 'good'].map(target) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** An upstream that answers after `ms` (its first token then), unless the gateway aborts it first. */
const answersAfter = (ms: number, value: string, aborted: string[]) => async (input: AttemptInput) => {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    input.signal.addEventListener('abort', () => {
      clearTimeout(timer);
      aborted.push(input.target.provider.id);
      reject(input.signal.reason);
    });
  });
  input.onFirstToken?.();
  return value;
};
const summary = (ctx: ReturnType<typeof setup>['ctx']) =>
  ctx.outcome.attempts.map(({ provider, status, errorCode, kind, cancelled }) => ({ provider, status, errorCode, kind, cancelled }));

describe('hedged first tokens', () => {
  it('starts the next target when the first token is late; the first to answer wins and the other is cancelled, not counted', async () => {
    const { ctx, targets } = setup();
    const aborted: string[] = [];
    const slow = answersAfter(60_000, 'slow answer', aborted);
    const good = answersAfter(1, 'good answer', aborted);
    const call = (input: AttemptInput) => (input.target.provider.id === 'slow' ? slow(input) : good(input));
    const discard = vi.fn(() => undefined);
    const success = await tryTargets(ctx, call, { targets, request: ctx.body, latency: { stream: true, discard } }, Date.now);
    expect(success).toMatchObject({ value: 'good answer', kind: 'hedged', index: 1 });
    expect(aborted).toEqual(['slow']);
    expect(summary(ctx)).toEqual([
      { provider: 'slow', status: 0, errorCode: 'hedge_cancelled', kind: 'first', cancelled: true },
      { provider: 'good', status: 200, errorCode: null, kind: 'hedged', cancelled: undefined },
    ]);
    expect(ctx.outcome.hedge).toEqual({ won: true, tokens: expect.any(Number) });
    expect(ctx.outcome.hedge!.tokens).toBeGreaterThan(0);
    expect(discard).not.toHaveBeenCalled();
    // The cancelled call is no failure: its circuit holds no count.
    expect((await breakerFor(ctx).check('slow/m')).failures).toBe(0);
    // But its wait counts as a lower bound of its time to first token.
    expect(latencyBook(ctx.runtime).peek('slow/m')!.stream.size).toBe(1);
  });

  it('drops the loser\'s answer when both come (one answer), and counts what it cost', async () => {
    const { ctx, targets } = setup();
    // The primary ignores the cancel and answers anyway, a moment after the hedge's first token.
    const call = async (input: AttemptInput) => {
      if (input.target.provider.id === 'good') {
        input.onFirstToken?.();
        return 'good answer';
      }
      await sleep(60);
      input.onFirstToken?.();
      return 'slow answer';
    };
    const discard = vi.fn((_value: string) => 1000);
    const success = await tryTargets(ctx, call, { targets, request: ctx.body, latency: { stream: false, discard } }, Date.now);
    expect(success.value).toBe('good answer');
    await vi.waitFor(() => expect(discard).toHaveBeenCalledWith('slow answer'));
    expect(ctx.outcome.hedge).toEqual({ won: true, tokens: 1000 });
    expect(ctx.outcome.served).toMatchObject({ provider: 'good' });
    expect(summary(ctx).filter((a) => a.status === 200)).toHaveLength(1);
  });

  it('keeps the first call when it answers first, and goes on with the hedge when the first fails', async () => {
    const { ctx, targets } = setup();
    const call = async (input: AttemptInput) => {
      if (input.target.provider.id === 'slow') {
        await sleep(40);
        throw httpAttemptError({ status: 400, message: 'no', type: 'invalid_request_error', code: 'context_length_exceeded', param: null });
      }
      await sleep(60);
      input.onFirstToken?.();
      return 'good answer';
    };
    const success = await tryTargets(ctx, call, { targets, request: ctx.body, latency: { stream: true, discard: () => undefined } }, Date.now);
    expect(success).toMatchObject({ value: 'good answer', kind: 'hedged' });
    expect(summary(ctx).map((a) => [a.provider, a.status, a.kind])).toEqual([['slow', 400, 'first'], ['good', 200, 'hedged']]);
  });

  it('never hedges when turned off, nor a call without a next target', async () => {
    const { ctx, targets } = setup('', '{ enabled: false, after_ms: 20 }');
    const aborted: string[] = [];
    const call = answersAfter(40, 'answer', aborted);
    const success = await tryTargets(ctx, call, { targets, request: ctx.body, latency: { stream: true, discard: () => undefined } }, Date.now);
    expect(success.target.provider.id).toBe('slow');
    expect(ctx.outcome.hedge).toBeUndefined();
    const other = setup();
    await tryTargets(other.ctx, call, { targets: other.targets.slice(0, 1), request: other.ctx.body, latency: { stream: true, discard: () => undefined } }, Date.now);
    expect(other.ctx.outcome.hedge).toBeUndefined();
    expect(aborted).toEqual([]);
  });
});

describe('a breaker probe', () => {
  it('is one call: a half-open target that fails again is not retried on the same target', async () => {
    const { ctx, targets } = setup('  breaker: { failure_threshold: 1, cooldown_ms: 0 }');
    await breakerFor(ctx).failure('slow/m'); // open; the cool-down is over at once: the next check is the probe
    const calls: string[] = [];
    const call = async (input: AttemptInput) => {
      calls.push(input.target.provider.id);
      if (input.target.provider.id === 'slow') throw httpAttemptError({ status: 503, message: 'down', type: 'server_error', code: null, param: null });
      return 'answer';
    };
    const success = await tryTargets(ctx, call, { targets, request: ctx.body }, Date.now);
    expect(success.target.provider.id).toBe('good');
    expect(calls).toEqual(['slow', 'good']);
  });

  it('a target whose circuit is closed is still retried', async () => {
    const { ctx, targets } = setup();
    const calls: string[] = [];
    const call = async (input: AttemptInput) => {
      calls.push(input.target.provider.id);
      if (input.target.provider.id === 'slow') throw httpAttemptError({ status: 503, message: 'down', type: 'server_error', code: null, param: null });
      return 'answer';
    };
    await tryTargets(ctx, call, { targets, request: ctx.body }, Date.now);
    expect(calls).toEqual(['slow', 'slow', 'slow', 'good']);
  });
});

describe('learned hedge points and deadlines', () => {
  const config = testConfig('providers: []\nrouting: { min_samples: 20 }\n');
  const provider = { id: 'p', timeouts: {} } as unknown as Target['provider'];
  const target: Target = { provider, upstreamModel: 'm', requestedAs: 'p/m' };

  it('uses the configured values before enough samples, then follows the deployment (streamed and not apart)', () => {
    const stats = new LatencyBook().of('p/m');
    expect(hedgePointMs(config, target, stats, true)).toBe(5000);
    expect(timeoutsFor(config, target, { stats, stream: true }).first_token).toBe(90_000);
    for (let i = 0; i < 20; i++) stats.stream.push(100 + i);
    expect(hedgePointMs(config, target, stats, true)).toBe(1000); // 2 x p95 = 238 ms, raised to the floor
    expect(timeoutsFor(config, target, { stats, stream: true }).first_token).toBe(10_000); // 3 x p99, raised to the floor
    expect(hedgePointMs(config, target, stats, false)).toBe(5000); // no JSON samples yet
    for (let i = 0; i < 20; i++) stats.stream.push(20_000);
    expect(hedgePointMs(config, target, stats, true)).toBe(40_000);
    expect(timeoutsFor(config, target, { stats, stream: true }).first_token).toBe(60_000);
    for (let i = 0; i < 100; i++) stats.stream.push(50_000);
    // A model that thinks for long keeps the configured deadline, never more.
    expect(timeoutsFor(config, target, { stats, stream: true }).first_token).toBe(90_000);
  });

  it('never hedges a model with hedge: false', () => {
    expect(hedgePointMs(config, { ...target, model: { hedge: false } as Target['model'] }, undefined, true)).toBeNull();
  });
});
