import { describe, expect, it, vi } from 'vitest';
import { serviceUnavailable, unsupportedParameter } from '../kernel/errors.ts';
import type { AttemptTrace, RequestTrace } from '../pipeline/tracing.ts';
import { createTestContext, testConfig, testRuntime } from '../pipeline/test-context.ts';
import type { ProviderAdapter, Target } from '../providers/types.ts';
import type { AttemptInput } from './call.ts';
import { breakerFor, tryTargets } from './try-targets.ts';

function setup() {
  const config = testConfig(`providers:
  - { id: open, name: Open, type: compat, endpoint: 'http://open.test', models: [m] }
  - { id: strict, name: Strict, type: vendor_b, endpoint: 'http://strict.test', models: [m] }
  - { id: good, name: Good, type: compat, endpoint: 'http://good.test', models: [m] }
routing:
  retries: 0
  breaker:
    failure_threshold: 1
`);
  const runtime = { ...testRuntime(config), adapters: { get: () => ({}) as ProviderAdapter } };
  const ctx = createTestContext({ model: 'open/m' }, runtime);
  const trace: RequestTrace = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    beginAttempt: vi.fn((): AttemptTrace => ({ headers: {}, answered() {}, used() {}, firstEvent() {}, streams() {} })),
    endAttempt: vi.fn(),
    passOver: vi.fn(),
    endStream: vi.fn(),
    end: vi.fn(),
  };
  ctx.trace = trace;
  const target = (id: string): Target => ({ provider: runtime.current().providers.get(id)!, upstreamModel: 'm', requestedAs: `${id}/m` });
  return { ctx, trace, targets: ['open', 'strict', 'good'].map(target) };
}

describe('tryTargets', () => {
  it('records the targets it passed over without a call as refused, apart from the upstream calls', async () => {
    const { ctx, trace, targets } = setup();
    await breakerFor(ctx).failure('open/m'); // its circuit opens
    const call = async ({ target }: AttemptInput) => {
      if (target.provider.id === 'strict') throw unsupportedParameter("The vendor_b upstream cannot fix the sampling seed: 'seed' is not supported.", 'seed');
      return 'answer';
    };
    const success = await tryTargets(ctx, call, { targets, request: ctx.body }, Date.now);
    expect(success.target.provider.id).toBe('good');
    expect(ctx.outcome.attempts.map(({ provider, status, errorCode, kind, refused }) => ({ provider, status, errorCode, kind, refused }))).toEqual([
      { provider: 'open', status: 0, errorCode: 'circuit_open', kind: 'first', refused: true },
      { provider: 'strict', status: 0, errorCode: 'unsupported_parameter', kind: 'fallback', refused: true },
      { provider: 'good', status: 200, errorCode: null, kind: 'fallback', refused: undefined },
    ]);
    expect(vi.mocked(trace.passOver).mock.calls.map(([a]) => a.provider)).toEqual(['open', 'strict']);
    expect(vi.mocked(trace.endAttempt).mock.calls.map(([a]) => a.provider)).toEqual(['good']);
  });

  it('records a call the drain deadline ended as a call made', async () => {
    const { ctx, trace, targets } = setup();
    const call = async (): Promise<string> => {
      throw serviceUnavailable('The gateway is shutting down.', 'server_shutting_down');
    };
    await expect(tryTargets(ctx, call, { targets: targets.slice(2), request: ctx.body }, Date.now)).rejects.toMatchObject({ code: 'server_shutting_down' });
    expect(ctx.outcome.attempts[0]).toMatchObject({ provider: 'good', errorCode: 'server_shutting_down' });
    expect(ctx.outcome.attempts[0]!.refused).toBeUndefined();
    expect(trace.endAttempt).toHaveBeenCalledTimes(1);
    expect(trace.passOver).not.toHaveBeenCalled();
  });
});
