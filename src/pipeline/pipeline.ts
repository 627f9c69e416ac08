/**
 * Build the request pipeline from `pipeline:` once per config snapshot and run requests
 * through it: steps in the configured order, errors rendered in one place, and every
 * plugin's onComplete called once after the last byte (or abort, or short-circuit).
 */
import type { PipelineEntry } from '../config/types.ts';
import { compose } from './compose.ts';
import type { GatewayContext } from './context.ts';
import { clientClosed, errorResponse, GatewayError, internalError, toGatewayError } from '../kernel/errors.ts';
import type { BuiltinPlugins } from './load-plugin.ts';
import { onAnswerEnd } from './body-end.ts';
import { kContextHeaders } from './render.ts';
import type { Next, PluginDeps, PluginInstance, Step } from './types.ts';
import { preparePipeline } from './prepare.ts';
import { ConfigPathError } from '../config/problems.ts';
import { tracing } from './tracing.ts';
import { withLogFields } from '../kernel/logger.ts';
import { inFlightOf } from './in-flight.ts';

export interface Pipeline {
  run(ctx: GatewayContext): Promise<Response>;
  /** Release every plugin once the requests still using this pipeline have finished. */
  close(): Promise<void>;
  readonly names: string[];
}

interface Loaded {
  name: string;
  failure: 'open' | 'closed';
  /** Loaded from a module: its step's answer is checked (built-ins are typed and tested). */
  custom: boolean;
  instance: PluginInstance;
}

/** `traced: false`: no request of this pipeline is traced (the start rehearsal's, src/boot/rehearsal.ts). */
export async function buildPipeline(
  entries: PipelineEntry[],
  deps: PluginDeps,
  configFile: string,
  builtins: BuiltinPlugins,
  options: { traced?: boolean } = {},
): Promise<Pipeline> {
  const traced = options.traced !== false;
  const prepared = await preparePipeline(entries, configFile, builtins);
  if (!prepared.ok) throw new ConfigPathError(prepared.problems);
  const loaded: Loaded[] = [];
  try {
    for (const { name, custom, def, options } of prepared.entries) {
      loaded.push({ name, failure: def.failure, custom, instance: await def.setup(options, deps) });
    }
  } catch (error) {
    await Promise.allSettled(loaded.map((p) => p.instance.close?.()));
    throw error;
  }
  const steps = loaded.filter((p) => p.instance.handle).map((p) => guardStep(p, deps));
  const observers = loaded.filter((p) => p.instance.onComplete).reverse();
  const composed = compose(steps, async () => {
    throw internalError(new Error('the pipeline has no terminal step (upstream)'));
  });
  let inFlight = 0;
  const gatewayInFlight = inFlightOf(deps.runtime);
  let drained: (() => void) | null = null;

  /**
   * Every observer is called in turn (their synchronous parts keep the reverse order) without
   * waiting for the one before: a slow or failing onComplete (a custom plugin's, after
   * `concurrency`) must not hold the others, such as the release of the concurrency slot. The
   * request counts as in flight until all have settled, so that close() waits for them.
   */
  async function complete(ctx: GatewayContext) {
    try {
      ctx.outcome.durationMs = Date.now() - ctx.startedAt;
      const pending: Promise<void>[] = [];
      for (const observer of observers) {
        try {
          const result = observer.instance.onComplete!(ctx, ctx.outcome);
          if (result) pending.push(Promise.resolve(result).catch((error: unknown) => observerFailed(observer, ctx, error)));
        } catch (error) {
          observerFailed(observer, ctx, error);
        }
      }
      if (pending.length) await Promise.all(pending);
      ctx.trace?.end(ctx);
    } catch (error) {
      deps.logger.error('request completion failed', { error: String(error), request: ctx.id });
    } finally {
      gatewayInFlight.count--;
      if (--inFlight === 0 && drained) drained();
    }
  }

  function observerFailed(observer: Loaded, ctx: GatewayContext, error: unknown) {
    deps.logger.error(`plugin ${observer.name} onComplete failed`, { error: String(error), request: ctx.id });
  }

  /** The answer for a throw (or a step's broken answer): the error shape, the cause only logged. */
  function failure(ctx: GatewayContext, thrown: unknown): GatewayError {
    // A client that hung up is not a server error: nobody reads this answer, the log says why.
    const error = ctx.signal.aborted && !GatewayError.is(thrown) ? clientClosed() : toGatewayError(thrown);
    if (error.status >= 500 && !GatewayError.is(thrown) && !ctx.signal.aborted) {
      deps.logger.error('request failed', { error: String(thrown), request: ctx.id });
    }
    ctx.outcome.error = { code: error.code, message: error.message, type: error.type };
    return error;
  }

  /** Sends `response` with the context's headers; `complete` runs once it has ended. */
  function answer(ctx: GatewayContext, response: Response): Response {
    if ((response as Response & ContextHeadersMark)[kContextHeaders] !== true) response = withContextHeaders(ctx, response);
    ctx.outcome.status = response.status;
    return onAnswerEnd(ctx, response, complete, failure);
  }

  return {
    names: loaded.map((p) => p.name),
    run(ctx) {
      inFlight++;
      gatewayInFlight.count++;
      if (tracing !== null && traced) ctx.trace = tracing.start(ctx);
      // A traced request's log lines carry its trace (kernel/logger.ts), to the end of its stream.
      return ctx.trace ? withLogFields({ trace_id: ctx.trace.traceId, span_id: ctx.trace.spanId }, () => runSteps(ctx)) : runSteps(ctx);
    },
    async close() {
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      await Promise.allSettled(loaded.map((p) => p.instance.close?.()));
    },
  };

  async function runSteps(ctx: GatewayContext): Promise<Response> {
    let response: Response;
    try {
      response = await composed(ctx);
      // Types forbid anything else, but a plugin in plain JS (or behind a cast) may still resolve to it.
      if (!(response instanceof Response)) throw notAResponse('a pipeline step', response);
    } catch (thrown) {
      response = renderFailure(ctx, failure(ctx, thrown));
    }
    try {
      return answer(ctx, response);
    } catch (thrown) {
      // The answer cannot be sent as it is (its body already read, say): a clean 500 instead.
      return answer(ctx, renderFailure(ctx, failure(ctx, thrown)));
    }
  }
}

type ContextHeadersMark = { [kContextHeaders]?: true };

/** An error answer in the shape of the interface the request came in through. */
const renderFailure = (ctx: GatewayContext, error: GatewayError): Response => (ctx.renderer.error ? ctx.renderer.error(ctx, error) : errorResponse(error));

/**
 * Adds the context's headers (request id, rate-limit state) that `response` lacks: an answer the
 * gateway rendered has them already (marked); a plugin's own answer or an error gets them here,
 * its own headers kept.
 */
function withContextHeaders(ctx: GatewayContext, response: Response): Response {
  try {
    setMissing(response.headers, ctx);
    return response;
  } catch {
    // Immutable headers (a fetch() answer handed on as it came): the same answer, headers copied.
    const copy = new Response(response.body, response);
    setMissing(copy.headers, ctx);
    return copy;
  }
}

function setMissing(headers: Headers, ctx: GatewayContext) {
  for (const [name, value] of ctx.responseHeaders) if (!headers.has(name)) headers.set(name, value);
}

/** What a step that resolved to something other than a Response is told (logged, never sent). */
function notAResponse(who: string, value: unknown): TypeError {
  const what =
    value === null ? 'null' : typeof value === 'object' ? `an object (${Object.prototype.toString.call(value)})` : typeof value === 'string' ? JSON.stringify(value) : String(value);
  return new TypeError(`${who} resolved to ${what} instead of a Response`);
}

/**
 * A custom step's answer is checked, naming the plugin when it is not a Response. Fail-open
 * plugins skip themselves on an unexpected throw; policy errors still apply.
 */
function guardStep(plugin: Loaded, deps: PluginDeps): Step {
  const handle = plugin.custom ? checked(plugin) : plugin.instance.handle!;
  if (plugin.failure === 'closed') return handle;
  return async function failOpen(ctx, next) {
    let called = false;
    const guardedNext: Next = () => {
      called = true;
      return next();
    };
    try {
      return await handle(ctx, guardedNext);
    } catch (error) {
      if (GatewayError.is(error) || called) throw error;
      deps.logger.warn(`plugin ${plugin.name} failed open`, { error: String(error), request: ctx.id });
      return next();
    }
  };
}

function checked(plugin: Loaded): Step {
  const handle = plugin.instance.handle!;
  return async function checkedStep(ctx, next) {
    const response = await handle(ctx, next);
    if (response instanceof Response) return response;
    throw notAResponse(`plugin ${plugin.name}`, response);
  };
}
