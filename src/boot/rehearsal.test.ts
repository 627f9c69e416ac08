import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../kernel/logger.ts';
import { testRuntime } from '../pipeline/test-context.ts';
import type { Runtime } from '../pipeline/runtime.ts';
import type { ConfigWriter } from '../config/write/write-back.ts';
import type { CallRecord } from '../plugins/log-record.ts';
import { createTransport } from '../providers/transport.ts';
import { createAdapterRegistry } from '../providers/index.ts';
import { DEFAULT_REHEARSAL_CALLS, orderedLike, rehearsalCallsFrom, rehearse } from './rehearsal.ts';

const logger = createLogger('error');

function realRuntime() {
  const transport = createTransport();
  const logged: CallRecord[] = [];
  const observed: unknown[] = [];
  const runtime: Runtime = {
    ...testRuntime(),
    transport,
    adapters: createAdapterRegistry(),
    services: { healthProbes: [], logs: { enqueue: (record) => logged.push(record) }, metrics: { observe: (sample) => observed.push(sample) } },
  };
  return { runtime, logged, observed, close: () => transport.close() };
}

/** The rehearsal only carries the writer along (the gateway's shape): it never writes. */
const writer = {} as ConfigWriter;

describe('the start rehearsal', () => {
  const closers: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('answers every call, plain and streamed, through the default pipeline and the call log path', async () => {
    const { runtime, close } = realRuntime();
    closers.push(close);
    const info = vi.fn();
    expect(await rehearse({ runtime, writer }, { ...logger, info }, 6)).toBe(6);
    // Each call built its log record and went through a queue into the rehearsal's own store.
    expect(info).toHaveBeenCalledWith('start rehearsal done', expect.objectContaining({ calls: 6, logged: 6 }));
  });

  it('leaves nothing behind: no call-log row, no metric, no counter in the real store', async () => {
    const { runtime, logged, observed, close } = realRuntime();
    closers.push(close);
    const incrBy = vi.spyOn(runtime.store, 'incrBy');
    expect(await rehearse({ runtime, writer }, logger, 4)).toBe(4);
    expect(logged).toEqual([]);
    expect(observed).toEqual([]);
    expect(incrBy).not.toHaveBeenCalled();
  });

  it('a failed rehearsal only warns: the start goes on', async () => {
    const { runtime, close } = realRuntime();
    closers.push(close);
    const broken: Runtime = { ...runtime, transport: { send: async () => Promise.reject(new Error('no route')), close: async () => {} } };
    const warn = vi.fn();
    expect(await rehearse({ runtime: broken, writer }, { ...logger, warn }, 4)).toBe(0);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('rehearsal failed'), expect.objectContaining({ error: expect.stringMatching(/HTTP 5\d\d/) }));
  });

  it('is off with GATEWAY_REHEARSAL_CALLS=0, and refuses a value that is not a whole number', async () => {
    expect(rehearsalCallsFrom({})).toBe(DEFAULT_REHEARSAL_CALLS);
    expect(rehearsalCallsFrom({ GATEWAY_REHEARSAL_CALLS: '0' })).toBe(0);
    expect(rehearsalCallsFrom({ GATEWAY_REHEARSAL_CALLS: '25' })).toBe(25);
    expect(() => rehearsalCallsFrom({ GATEWAY_REHEARSAL_CALLS: '-1' })).toThrow(/whole number/);
    expect(() => rehearsalCallsFrom({ GATEWAY_REHEARSAL_CALLS: 'lots' })).toThrow(/whole number/);
    const { runtime, close } = realRuntime();
    closers.push(close);
    expect(await rehearse({ runtime, writer }, logger, 0)).toBe(0);
  });

  it('orders its config like the real one, at every depth, so that both are one shape', () => {
    const real = { server: { port: 1, host: 'h' }, providers: [{ type: 'openai', id: 'a', extra: 1 }], routing: { retries: 2 } };
    const own = { routing: { retries: 0 }, providers: [{ id: 'r', type: 'compat' }, { id: 's', type: 'compat' }], server: { host: 'x', port: 2, base_url: 'u' }, only: true };
    const ordered = orderedLike(own, real) as typeof own;
    expect(ordered).toEqual(own);
    expect(JSON.stringify(ordered)).toBe(
      '{"server":{"port":2,"host":"x","base_url":"u"},"providers":[{"type":"compat","id":"r"},{"type":"compat","id":"s"}],"routing":{"retries":0},"only":true}',
    );
  });
});
