import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildPipeline } from './pipeline.ts';
import { forbidden } from '../kernel/errors.ts';
import { createTestContext, testRuntime } from './test-context.ts';
import { definePlugin, type PluginDefinition } from './types.ts';
import type { Outcome } from './outcome.ts';
import { ConfigPathError } from '../config/problems.ts';

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

describe('whatever a step returns or throws, the request completes once', () => {
  const recorder = (outcomes: Outcome[]) =>
    definePlugin({ name: 'obs', schema: {}, failure: 'open', setup: () => ({ onComplete: (_c, o) => void outcomes.push({ ...o }) }) });

  it('answers a clean 500 when a step resolves to undefined, runs onComplete once and lets close() run', async () => {
    const outcomes: Outcome[] = [];
    const closed = vi.fn();
    const forgetful = definePlugin({
      name: 'forgetful', schema: {}, failure: 'closed',
      setup: () => ({ handle: async (_ctx, next) => { await next(); return undefined as unknown as Response; }, close: closed }),
    });
    const { pipeline, runtime } = await pipelineOf([recorder(outcomes), forgetful, terminal(() => new Response('served'))]);
    logger.error.mockClear();
    const ctx = createTestContext({}, runtime);
    const response = await pipeline.run(ctx);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { message: 'The server had an error while processing the request.', type: 'server_error', param: null, code: 'internal_error' } });
    expect(response.headers.get('x-request-id')).toBe(ctx.id);
    await new Promise((r) => setTimeout(r, 10));
    expect(outcomes).toEqual([expect.objectContaining({ status: 500, error: expect.objectContaining({ code: 'internal_error' }) })]);
    expect(logger.error).toHaveBeenCalledWith('request failed', expect.objectContaining({ error: expect.stringContaining('undefined instead of a Response') }));
    await pipeline.close(); // never resolved while the request stayed counted in flight
    expect(closed).toHaveBeenCalledOnce();
  });

  it('names the custom plugin whose step resolved to something other than a Response', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gw-plugin-'));
    try {
      await writeFile(join(dir, 'sloppy.mjs'), `export default {
        name: 'sloppy', failure: 'closed', schema: {},
        setup: () => ({ handle: async (ctx, next) => { await next(); return 'done'; } }),
      };`);
      const entries = [
        { name: 'sloppy', module: './sloppy.mjs', enabled: true, options: {} },
        { name: 'terminal', enabled: true, options: {} },
      ];
      const builtins = new Map([['terminal', terminal(() => new Response('served'))]]);
      const pipeline = await buildPipeline(entries, { runtime: testRuntime(), logger, now: Date.now }, join(dir, 'gateway.yaml'), builtins);
      logger.error.mockClear();
      expect((await pipeline.run(createTestContext())).status).toBe(500);
      expect(logger.error).toHaveBeenCalledWith('request failed', expect.objectContaining({ error: 'TypeError: plugin sloppy resolved to "done" instead of a Response' }));
      await pipeline.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("ends a stream a step's transform breaks with one error event, as the gateway's error, not a hang-up", async () => {
    const outcomes: Outcome[] = [];
    const stream = definePlugin({
      name: 'terminal', schema: {}, failure: 'closed',
      setup: () => ({ handle: async (ctx) => {
        ctx.outcome.streamed = true;
        return new Response(streamOf(['data: 1\n\n', 'data: 2\n\n', 'data: 3\n\n']));
      } }),
    });
    const breaking = definePlugin({
      name: 'breaking', schema: {}, failure: 'closed',
      setup: () => ({ handle: async (_ctx, next) => {
        const response = await next();
        let chunks = 0;
        const transform = new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            if (++chunks === 2) throw new Error('secret detail');
            controller.enqueue(chunk);
          },
        });
        return new Response(response.body!.pipeThrough(transform), response);
      } }),
    });
    const { pipeline, runtime } = await pipelineOf([recorder(outcomes), breaking, stream]);
    const response = await pipeline.run(createTestContext({ stream: true }, runtime));
    expect(await response.text()).toBe(
      'data: 1\n\ndata: {"error":{"message":"The server had an error while processing the request.","type":"server_error","param":null,"code":"internal_error"}}\n\n',
    );
    await new Promise((r) => setTimeout(r, 10));
    expect(outcomes).toEqual([expect.objectContaining({ status: 200, aborted: false, error: expect.objectContaining({ code: 'internal_error' }) })]);
  });

  it('calls every onComplete without waiting for a slow or failing one, in order, and close() waits for all', async () => {
    const events: string[] = [];
    let finishSlow!: () => void;
    const slow = definePlugin({
      name: 'slow', schema: {}, failure: 'open',
      setup: () => ({ onComplete: async () => {
        events.push('slow:start');
        await new Promise<void>((resolve) => (finishSlow = resolve));
        events.push('slow:end');
      } }),
    });
    const failing = definePlugin({ name: 'failing', schema: {}, failure: 'open', setup: () => ({ onComplete: () => { events.push('failing'); throw new Error('x'); } }) });
    const rejecting = definePlugin({ name: 'rejecting', schema: {}, failure: 'open', setup: () => ({ onComplete: async () => { events.push('rejecting'); throw new Error('y'); } }) });
    const release = definePlugin({ name: 'release', schema: {}, failure: 'open', setup: () => ({ onComplete: () => void events.push('release') }) });
    // Observers run in reverse pipeline order: slow, failing, rejecting, then release (the slot, say).
    const { pipeline, runtime } = await pipelineOf([release, rejecting, failing, slow, terminal(() => new Response('x'))]);
    await (await pipeline.run(createTestContext({}, runtime))).text();
    await new Promise((r) => setTimeout(r, 10));
    expect(events).toEqual(['slow:start', 'failing', 'rejecting', 'release']);
    expect(logger.error).toHaveBeenCalledWith('plugin failing onComplete failed', expect.anything());
    expect(logger.error).toHaveBeenCalledWith('plugin rejecting onComplete failed', expect.anything());
    let closed = false;
    const closing = pipeline.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(closed).toBe(false);
    finishSlow();
    await closing;
    expect(events.at(-1)).toBe('slow:end');
  });

  it("gives a step's own answer the context's headers, keeping the step's own", async () => {
    const limited = definePlugin({
      name: 'limited', schema: {}, failure: 'closed',
      setup: () => ({ handle: async (ctx, next) => {
        ctx.responseHeaders.set('x-ratelimit-limit-requests', '10');
        ctx.responseHeaders.set('x-ratelimit-remaining-requests', '9');
        return next();
      } }),
    });
    const own = definePlugin({
      name: 'own', schema: {}, failure: 'closed',
      setup: () => ({ handle: async (ctx) =>
        ctx.body.user === 'redirect'
          ? Response.redirect('http://example.test/elsewhere', 302) // immutable headers
          : new Response('mine', { headers: { 'x-ratelimit-limit-requests': 'own' } }) }),
    });
    const { pipeline, runtime } = await pipelineOf([limited, own]);
    const ctx = createTestContext({}, runtime);
    const response = await pipeline.run(ctx);
    expect(await response.text()).toBe('mine');
    expect(response.headers.get('x-request-id')).toBe(ctx.id);
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('9');
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('own');
    const redirectCtx = createTestContext({ user: 'redirect' }, runtime);
    const redirect = await pipeline.run(redirectCtx);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('http://example.test/elsewhere');
    expect(redirect.headers.get('x-request-id')).toBe(redirectCtx.id);
  });
});

it('buildPipeline refuses bad options with their place in gateway.yaml', async () => {
  const strict = definePlugin({
    name: 'strict', failure: 'closed', setup: () => ({}),
    schema: { type: 'object', additionalProperties: false, required: ['tag'], properties: { tag: { type: 'string' } } },
  });
  const entries = [{ name: 'strict', enabled: true, options: { tag: 5, bogus: true } }];
  const error = await buildPipeline(entries, { runtime: testRuntime(), logger, now: Date.now }, '/x/gateway.yaml', new Map([['strict', strict]])).catch((e) => e);
  expect(error).toBeInstanceOf(ConfigPathError);
  expect(error.problems).toEqual([
    { segments: ['pipeline', 0, 'options', 'bogus'], atKey: true, message: 'is not a known option' },
    { segments: ['pipeline', 0, 'options', 'tag'], message: 'must be string' },
  ]);
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
      .rejects.toThrow(/bad-schema\.mjs' has an options schema that is not valid JSON Schema.*minimum/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
