/**
 * log: observes every finished exchange that passed auth. Counts the key's requests and tokens
 * in the state store, and hands a call record to the log queue (written in batches, off the
 * request path) when a log store is configured.
 */
import { definePlugin } from '../pipeline/types.ts';
import { buildLogRecord, type LogSink } from '../pipeline/log-record.ts';
import schema from '../../schemas/plugins/log.schema.json' with { type: 'json' };

export default definePlugin({
  name: 'log',
  schema,
  failure: 'open',
  setup(_options, { runtime }) {
    return {
      async onComplete(ctx, outcome) {
        const principal = ctx.principal;
        if (!principal) return; // never authenticated: nothing to attribute
        const tokens = outcome.usage?.total_tokens ?? 0;
        if (principal.key) {
          await Promise.all([
            runtime.store.incrBy(`gw:usage:key:${principal.key.id}:requests`, 1),
            tokens ? runtime.store.incrBy(`gw:usage:key:${principal.key.id}:tokens`, tokens) : undefined,
          ]);
        }
        const sink = runtime.services.logs as LogSink | undefined;
        sink?.enqueue(buildLogRecord(ctx, outcome));
      },
    };
  },
});
