import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildPipeline } from './pipeline.ts';
import { forbidden } from '../kernel/errors.ts';
import { createTestContext, testRuntime } from './test-context.ts';
import { definePlugin, type PluginDefinition } from './types.ts';
import type { Outcome } from './outcome.ts';

const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };

/** Build a pipeline from inline definitions, handed in as the built-ins. */
async function pipelineOf(defs: PluginDefinition<any>[]) {
  const runtime = testRuntime();
  const builtins = new Map(defs.map((def) => [def.name, def]));
  const entries = defs.map((def) => ({ name: def.name, enabled: true, options: {} }));
  const pipeline = await buildPipeline(entries, { runtime, logger, now: Date.now }, '/virtual/gateway.yaml', builtins);
  return { pipeline, runtime };
}

const terminal = (body: () => Response) =>
  definePlugin({ name: 'terminal', schema: {}, failure: 'closed', setup: () => ({ handle: async () => body() }) });

function streamOf(parts: string[]) {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
      controller.close();
    },
  });
}

describe('buildPipeline / run', () => {
  it('calls onComplete once, after the last byte of a stream, in reverse order', async () => {
    const events: string[] = [];
    const observer = (name: string) =>
      definePlugin({ name, schema: {}, failure: 'open', setup: () => ({ onComplete: (_ctx, outcome: Outcome) => void events.push(`${name}:${outcome.status}:${outcome.aborted}`) }) });
    const stream = definePlugin({
      name: 'terminal', schema: {}, failure: 'closed',
      setup: () => ({ handle: async (ctx) => {
        ctx.outcome.streamed = true;
        return new Response(streamOf(['a', 'b']));
      } }),
    });
    const { pipeline, runtime } = await pipelineOf([observer('first'), observer('second'), stream]);
    const ctx = createTestContext({}, runtime);
    const response = await pipeline.run(ctx);
    await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual([]); // nothing before the body is read
    expect(await response.text()).toBe('ab');
    await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual(['second:200:false', 'first:200:false']);
  });

  it('reports an aborted stream when the client cancels', async () => {
    const outcomes: Outcome[] = [];
    const observer = definePlugin({ name: 'obs', schema: {}, failure: 'open', setup: () => ({ onComplete: (_c, o) => void outcomes.push(o) }) });
    const never = definePlugin({
      name: 'terminal', schema: {}, failure: 'closed',
      setup: () => ({ handle: async (ctx) => {
        ctx.outcome.streamed = true;
        return new Response(new ReadableStream({ pull() {} }));
      } }),
    });
    const { pipeline, runtime } = await pipelineOf([observer, never]);
    const response = await pipeline.run(createTestContext({}, runtime));
    await response.body!.cancel();
    await new Promise((r) => setTimeout(r, 10));
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0].aborted).toBe(true);
  });

  it('renders a thrown GatewayError in the error shape and records it in the outcome', async () => {
    const outcomes: Outcome[] = [];
    const observer = definePlugin({ name: 'obs', schema: {}, failure: 'open', setup: () => ({ onComplete: (_c, o) => void outcomes.push(o) }) });
    const deny = definePlugin({ name: 'deny', schema: {}, failure: 'closed', setup: () => ({ handle: async () => { throw forbidden('no', 'nope'); } }) });
    const { pipeline, runtime } = await pipelineOf([observer, deny, terminal(() => new Response('unreached'))]);
    const response = await pipeline.run(createTestContext({}, runtime));
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: { message: 'no', type: 'permission_error', param: null, code: 'nope' } });
    await new Promise((r) => setTimeout(r, 10));
    expect(outcomes[0]).toMatchObject({ status: 403, error: { code: 'nope' } });
  });

  it('skips a fail-open step that throws unexpectedly, but not its policy errors', async () => {
    const flaky = definePlugin({ name: 'flaky', schema: {}, failure: 'open', setup: () => ({ handle: async () => { throw new Error('down'); } }) });
    const { pipeline, runtime } = await pipelineOf([flaky, terminal(() => new Response('served'))]);
    expect(await (await pipeline.run(createTestContext({}, runtime))).text()).toBe('served');
    expect(logger.warn).toHaveBeenCalledWith('plugin flaky failed open', expect.anything());
  });

  it('turns an unexpected throw of a fail-closed step into a generic 500', async () => {
    const broken = definePlugin({ name: 'broken', schema: {}, failure: 'closed', setup: () => ({ handle: async () => { throw new Error('secret detail'); } }) });
    const { pipeline, runtime } = await pipelineOf([broken, terminal(() => new Response('x'))]);
    const response = await pipeline.run(createTestContext({}, runtime));
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain('secret detail');
  });

  it('records a client that hung up as 499 client_closed, not as a server error', async () => {
    const outcomes: Outcome[] = [];
    const observer = definePlugin({ name: 'obs', schema: {}, failure: 'open', setup: () => ({ onComplete: (_c, o) => void outcomes.push(o) }) });
    const controller = new AbortController();
    const cut = definePlugin({
      name: 'terminal', schema: {}, failure: 'closed',
      setup: () => ({ handle: async () => {
        controller.abort();
        throw new Error('socket hang up');
      } }),
    });
    const { pipeline, runtime } = await pipelineOf([observer, cut]);
    logger.error.mockClear();
    const response = await pipeline.run(createTestContext({}, runtime, controller.signal));
    expect(response.status).toBe(499);
    await new Promise((r) => setTimeout(r, 10));
    expect(outcomes[0]).toMatchObject({ status: 499, aborted: true, error: { code: 'client_closed' } });
    expect(logger.error).not.toHaveBeenCalled();
  });

  it('waits for in-flight requests before closing plugins', async () => {
    const closed = vi.fn();
    let release!: () => void;
    const slow = definePlugin({
      name: 'terminal', schema: {}, failure: 'closed',
      setup: () => ({
        handle: async (ctx) => {
          ctx.outcome.streamed = true;
          return new Response(new ReadableStream({ start: (c) => { release = () => c.close(); } }));
        },
        close: closed,
      }),
    });
    const { pipeline, runtime } = await pipelineOf([slow]);
    const response = await pipeline.run(createTestContext({}, runtime));
    const closing = pipeline.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(closed).not.toHaveBeenCalled();
    release();
    await response.text();
    await closing;
    expect(closed).toHaveBeenCalledOnce();
  });
});

it('buildPipeline refuses an unknown built-in', async () => {
  await expect(buildPipeline([{ name: 'nope', enabled: true, options: {} }], { runtime: testRuntime(), logger, now: Date.now }, '/x/gateway.yaml', new Map())).rejects.toThrow(/unknown built-in plugin/);
});

it('buildPipeline refuses a plugin module whose options schema is not valid JSON Schema', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'gw-plugin-'));
  try {
    await writeFile(join(dir, 'bad-schema.mjs'), `export default {
      name: 'bad-schema', failure: 'closed', setup: () => ({}),
      schema: { type: 'object', properties: { limit: { type: 'integer', minimum: 'five' } } },
    };`);
    const entries = [{ name: 'bad-schema', module: './bad-schema.mjs', enabled: true, options: {} }];
    await expect(buildPipeline(entries, { runtime: testRuntime(), logger, now: Date.now }, join(dir, 'gateway.yaml'), new Map()))
      .rejects.toThrow(/bad-schema\.mjs'.*options schema is not valid JSON Schema.*minimum/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
