/**
 * log: observes every finished exchange. For calls that passed auth it counts the key's
 * requests and tokens in the state store and hands a call record to the log service (queued,
 * written in batches off the request path). Every exchange, authenticated or not, feeds the
 * metrics service when there is one.
 */
import type { Snapshot } from '../config/snapshot.ts';
import type { Endpoint, GatewayContext } from '../pipeline/context.ts';
import type { Outcome } from '../pipeline/outcome.ts';
import { definePlugin } from '../pipeline/types.ts';
import { buildLogRecord, type CallRecord, type LogSink } from './log-record.ts';
import schema from '../../schemas/plugins/log.schema.json' with { type: 'json' };

/** One finished exchange, as the log step reports it to the metrics. */
export interface CallSample {
  /** Model as served, else as requested ('' when none), as a bounded label value (modelLabel). */
  model: string;
  /** The inference interface the call came in through. */
  endpoint: Endpoint;
  /** The label value of another model name of the call (a fallback's), bounded the same way. */
  labelOf?(model: string): string;
  outcome: Outcome;
  /** The ledger view of the call when it was attributed to a key (tokens, cost). */
  record?: CallRecord;
}

/** Counts every finished exchange (the metrics feature). */
export interface CallObserver {
  observe(sample: CallSample): void;
}

declare module '../pipeline/services.ts' {
  interface Services {
    /** Where call records go (the call-log feature); without it nothing is logged. */
    logs?: LogSink;
    /** Counts every exchange, authenticated or not (the metrics feature). */
    metrics?: CallObserver;
  }
}

export default definePlugin({
  name: 'log',
  schema,
  failure: 'open',
  setup(_options, { runtime, logger }) {
    return {
      async onComplete(ctx, outcome) {
        const principal = ctx.principal;
        const record = principal ? buildLogRecord(ctx, outcome) : undefined;
        const metrics = runtime.services.metrics;
        try {
          metrics?.observe({ model: metricModel(ctx, outcome), endpoint: ctx.endpoint, labelOf: (name) => modelLabel(ctx.snapshot, name), outcome, record });
        } catch (error) {
          logger.warn('metrics observe failed', { error: String(error), request: ctx.id });
        }
        if (!principal || !record) return; // never authenticated: nothing to attribute
        // Queue first: the ledger row must not wait on (or be lost with) the counters below.
        const sink = runtime.services.logs;
        sink?.enqueue(record);
        const tokens = record.request_tokens + record.response_tokens;
        if (principal.key) {
          await Promise.all([
            runtime.store.incrBy(`gw:usage:key:${principal.key.id}:requests`, 1),
            tokens ? runtime.store.incrBy(`gw:usage:key:${principal.key.id}:tokens`, tokens) : undefined,
          ]);
        }
      },
    };
  },
});

/**
 * The `model` label: the model that served, else the requested one, from a bounded set
 * (modelLabel): a client must not be able to create unbounded label values (one time series
 * each) by sending random model names.
 */
function metricModel(ctx: GatewayContext, outcome: Outcome): string {
  const model = outcome.served?.model ?? ctx.body?.model;
  return model ? modelLabel(ctx.snapshot, model) : '';
}

/**
 * A model name as a label value from a bounded set: a configured model's id; `provider/model`
 * when the provider lists that model, `provider/(other)` when it does not (a provider may serve
 * names it does not list, each would be a new series); `(unknown)` for anything else.
 */
export function modelLabel(snapshot: Snapshot, model: string): string {
  if (snapshot.models.has(model)) return model;
  const slash = model.indexOf('/');
  const provider = slash > 0 ? snapshot.providers.get(model.slice(0, slash)) : undefined;
  if (!provider) return '(unknown)';
  return provider.models.includes(model.slice(slash + 1)) ? model : `${provider.id}/(other)`;
}
