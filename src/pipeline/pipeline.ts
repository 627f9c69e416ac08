/**
 * Build the request pipeline from `pipeline:` once per config snapshot and run requests
 * through it: steps in the configured order, errors rendered in one place, and every
 * plugin's onComplete called once after the last byte (or abort, or short-circuit).
 */
import { dirname } from 'node:path';
import type { PipelineEntry } from '../config/types.ts';
import { compose } from './compose.ts';
import type { GatewayContext } from './context.ts';
import { clientClosed, errorResponse, GatewayError, internalError, toGatewayError } from '../kernel/errors.ts';
import { loadPluginDefinition, validateOptions, type BuiltinPlugins } from './load-plugin.ts';
import { onAnswerEnd } from './body-end.ts';
import type { Next, PluginDefinition, PluginDeps, PluginInstance, Step } from './types.ts';
import { orderProblems } from './order.ts';
import { ConfigPathError } from '../config/problems.ts';
import { tracing } from '../kernel/tracing.ts';

export interface Pipeline {
  run(ctx: GatewayContext): Promise<Response>;
  /** Release every plugin once the requests still using this pipeline have finished. */
  close(): Promise<void>;
  readonly names: string[];
}

interface Loaded {
  name: string;
  failure: 'open' | 'closed';
  instance: PluginInstance;
}

export async function buildPipeline(entries: PipelineEntry[], deps: PluginDeps, configFile: string, builtins: BuiltinPlugins): Promise<Pipeline> {
  const definitions = new Map<number, PluginDefinition>();
  for (const [index, entry] of entries.entries()) {
    if (entry.enabled) definitions.set(index, await loadPluginDefinition(entry, dirname(configFile), builtins));
  }
  const misplaced = orderProblems(entries, (_entry, index) => definitions.get(index));
  if (misplaced.length) throw new ConfigPathError(misplaced);
  const loaded: Loaded[] = [];
  try {
    for (const [index, def] of definitions) {
      const entry = entries[index]!;
      const options = await validateOptions(entry, def);
      loaded.push({ name: entry.name || def.name, failure: def.failure, instance: await def.setup(options, deps) });
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
  let drained: (() => void) | null = null;

  async function complete(ctx: GatewayContext) {
    ctx.outcome.durationMs = Date.now() - ctx.startedAt;
    for (const observer of observers) {
      try {
        await observer.instance.onComplete!(ctx, ctx.outcome);
      } catch (error) {
        deps.logger.error(`plugin ${observer.name} onComplete failed`, { error: String(error), request: ctx.id });
      }
    }
    ctx.trace?.end(ctx);
    if (--inFlight === 0 && drained) drained();
  }

  return {
    names: loaded.map((p) => p.name),
    async run(ctx) {
      inFlight++;
      if (tracing !== null) ctx.trace = tracing.start(ctx);
      let response: Response;
      try {
        response = await composed(ctx);
      } catch (thrown) {
        // A client that hung up is not a server error: nobody reads this answer, the log says why.
        const error = ctx.signal.aborted && !GatewayError.is(thrown) ? clientClosed() : toGatewayError(thrown);
        if (error.status >= 500 && !GatewayError.is(thrown) && !ctx.signal.aborted) {
          deps.logger.error('request failed', { error: String(thrown), request: ctx.id });
        }
        ctx.outcome.error = { code: error.code, message: error.message, type: error.type };
        response = errorResponse(error);
        for (const [name, value] of ctx.responseHeaders) if (!response.headers.has(name)) response.headers.set(name, value);
      }
      ctx.outcome.status = response.status;
      return onAnswerEnd(ctx, response, complete);
    },
    async close() {
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      await Promise.allSettled(loaded.map((p) => p.instance.close?.()));
    },
  };
}

/** Fail-open plugins skip themselves on an unexpected throw; policy errors still apply. */
function guardStep(plugin: Loaded, deps: PluginDeps): Step {
  const handle = plugin.instance.handle!;
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
