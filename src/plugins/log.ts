/**
 * log: observes every finished exchange. For calls that passed auth it counts the key's
 * requests and tokens in the state store and hands a call record to the log service (queued,
 * written in batches off the request path). Every exchange, authenticated or not, feeds the
 * metrics service when there is one.
 */
import type { MetricsService } from '../metrics/service.ts';
import { definePlugin } from '../pipeline/types.ts';
import { buildLogRecord, type LogSink } from '../pipeline/log-record.ts';
import schema from '../../schemas/plugins/log.schema.json' with { type: 'json' };

export default definePlugin({
  name: 'log',
  schema,
  failure: 'open',
  setup(_options, { runtime, logger }) {
    return {
      async onComplete(ctx, outcome) {
        const principal = ctx.principal;
        const record = principal ? buildLogRecord(ctx, outcome) : undefined;
        const metrics = runtime.services.metrics as MetricsService | undefined;
        try {
          metrics?.observe({ model: outcome.served?.model ?? ctx.body?.model ?? '', outcome, record });
        } catch (error) {
          logger.warn('metrics observe failed', { error: String(error), request: ctx.id });
        }
        if (!principal || !record) return; // never authenticated: nothing to attribute
        // Queue first: the ledger row must not wait on (or be lost with) the counters below.
        const sink = runtime.services.logs as LogSink | undefined;
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
