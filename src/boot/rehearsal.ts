/**
 * A rehearsal before the gateway says it is ready (issue 37): the first requests a process serves
 * run through code V8 has not compiled yet (the pipeline, undici's client and its llhttp wasm,
 * node:http, srvx), and at a few thousand requests per second that first pass is a stall the
 * queue then carries for a second or more. So before the gateway listens, it sends itself a few
 * dozen plain and streamed chat calls over loopback HTTP, through the default pipeline, to an
 * upstream of its own (rehearsal-upstream.ts).
 *
 * The path is the one real calls take, so that what V8 learns there still holds for them (a
 * function that meets new shapes after it was optimized is thrown back and compiled again, on the
 * cores the first load needs): the h3 router and its error wrapper in front, the call-log record
 * and its queue, and the metrics behind.
 *
 * Nothing of the rehearsal is seen or kept: it runs on a config of its own (one compat provider,
 * one model, one random key) and a copy of the runtime with its own memory store, a call-log queue
 * whose store discards the rows, a metrics registry of its own that nothing scrapes, no usage
 * counters in the real store, untraced, on a port of its own that closes before the gateway's
 * opens. A rehearsal that fails only costs its warmth: the start goes on (a warning says why).
 */
import { Agent, request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { H3, type H3Event } from 'h3';
import { serve } from 'srvx';
import { loadConfigText } from '../config/load.ts';
import { hashApiKey } from '../config/keys.ts';
import { buildSnapshot } from '../config/snapshot.ts';
import { chatBody, handleInference } from '../features/inference/routes.ts';
import { toLogRecord } from '../features/logs/billing.ts';
import { createLogQueue } from '../features/logs/queue.ts';
import type { LogStore } from '../features/logs/types.ts';
import { createMetrics } from '../features/metrics/service.ts';
import { requestIp } from '../http/client-ip.ts';
import { safe } from '../http/handle.ts';
import type { Logger } from '../kernel/logger.ts';
import type { Gateway } from '../pipeline/gateway.ts';
import { buildPipeline } from '../pipeline/pipeline.ts';
import type { Runtime } from '../pipeline/runtime.ts';
import { builtinPlugins } from '../plugins/index.ts';
import { createMemoryStore } from '../store/memory.ts';
import { startRehearsalUpstream } from './rehearsal-upstream.ts';

/**
 * Calls sent by default (half of them streamed); GATEWAY_REHEARSAL_CALLS=0 turns it off. The first
 * few pay the one-time costs (compiling every function on the path, undici's wasm parser) that
 * made the first request ~25-45 ms; more warm the code further but each leaves memory resident
 * (idle RSS +7 MiB at 64, +17 MiB at 400: bench/README.md, issue 37).
 */
export const DEFAULT_REHEARSAL_CALLS = 64;
/** The rehearsal never holds the start longer than this. */
const BUDGET_MS = 3_000;
const CONCURRENCY = 8;

/** `GATEWAY_REHEARSAL_CALLS` (a whole number >= 0, default 64); anything else stops the start. */
export function rehearsalCallsFrom(env: NodeJS.ProcessEnv): number {
  const raw = env.GATEWAY_REHEARSAL_CALLS;
  if (raw === undefined || raw === '') return DEFAULT_REHEARSAL_CALLS;
  const calls = Number(raw);
  if (!Number.isInteger(calls) || calls < 0) throw new Error(`GATEWAY_REHEARSAL_CALLS must be a whole number >= 0, not "${raw}".`);
  return calls;
}

function rehearsalConfigText(endpoint: string, key: string): string {
  // JSON is YAML: the config loader reads it as it reads gateway.yaml (defaults, default pipeline).
  return JSON.stringify({
    providers: [{ id: 'rehearsal', name: 'Rehearsal', type: 'compat', endpoint, api_key: 'rehearsal', models: ['rehearsal'] }],
    models: [{ id: 'rehearsal', name: 'Rehearsal', provider: 'rehearsal', context_length: 8192, input_price: 0.001, output_price: 0.002 }],
    groups: [{ id: 'rehearsal', name: 'Rehearsal', priority: 0, quota_limit: 0 }],
    accounts: [{ id: 'rehearsal', email: 'rehearsal@localhost.invalid', name: 'Rehearsal', role: 'member', group: 'rehearsal' }],
    keys: [{ id: 'rehearsal', name: 'Rehearsal', key_hash: hashApiKey(key), account: 'rehearsal' }],
    routing: { retries: 0 },
  });
}

/** Runs the rehearsal; resolves with the number of calls answered (never rejects). */
export async function rehearse(gateway: Pick<Gateway, 'runtime'>, logger: Logger, calls: number): Promise<number> {
  if (calls <= 0) return 0;
  const closers: Array<() => unknown> = [];
  try {
    const upstream = await startRehearsalUpstream();
    closers.push(() => upstream.close());
    const key = `sk-rehearsal-${randomBytes(16).toString('hex')}`;
    const loaded = loadConfigText(rehearsalConfigText(upstream.url, key), '(rehearsal)', {});
    if (!loaded.ok) throw new Error(loaded.problems.map((p) => p.message).join('; '));
    const snapshot = buildSnapshot(loaded.config, '(rehearsal)', 0);
    const store = createMemoryStore();
    closers.push(() => store.close());
    const discarded = discardingLogStore();
    const queue = createLogQueue(discarded.store, { batchSize: snapshot.config.logs.batch_size, flushIntervalMs: snapshot.config.logs.flush_interval_ms, max: snapshot.config.logs.queue_max, logger });
    closers.push(() => queue.close());
    const services = { healthProbes: [], logs: { enqueue: (call) => queue.enqueue(toLogRecord(call)) }, metrics: createMetrics('rehearsal_') } satisfies Runtime['services'];
    const runtime: Runtime = { ...gateway.runtime, store, services, current: () => snapshot };
    const pipeline = await buildPipeline(snapshot.config.pipeline, { runtime, logger, now: () => Date.now() }, snapshot.file, builtinPlugins, { traced: false });
    closers.push(() => pipeline.close());
    const rehearsal = { runtime, config: { current: () => ({ snapshot, pipeline }) } };
    // As src/server.ts mounts an inference route.
    const app = new H3();
    app.post('/v1/chat/completions', safe(logger, (event: H3Event) => handleInference(rehearsal, event.req, requestIp(event.req, snapshot.config.server.trusted_proxies), 'chat', chatBody)));
    const server = serve({
      fetch: app.fetch,
      port: 0,
      hostname: '127.0.0.1',
      silent: true,
      gracefulShutdown: false,
    });
    closers.push(() => server.close(true));
    await server.ready();
    const started = Date.now();
    const answered = await sendCalls(server.url!.replace(/\/$/, ''), key, calls);
    await queue.flush();
    logger.info('start rehearsal done', { calls: answered, logged: discarded.rows(), ms: Date.now() - started });
    return answered;
  } catch (error) {
    logger.warn('the start rehearsal failed: the first requests will be slower', { error: String(error) });
    return 0;
  } finally {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => {});
  }
}

/** A call-log store that takes every batch and keeps nothing but the count of its rows. */
function discardingLogStore(): { store: LogStore; rows(): number } {
  const nothing = () => Promise.reject(new Error('the rehearsal keeps no call log'));
  let rows = 0;
  const store: LogStore = {
    kind: 'sqlite',
    migrate: async () => {},
    insertBatch: async (records) => {
      rows += records.length;
    },
    list: nothing,
    get: nothing,
    breakdown: nothing,
    deleteOlderThan: async () => 0,
    rollup: nothing,
    ping: async () => 0,
    close: async () => {},
  };
  return { store, rows: () => rows };
}

/** `calls` chat calls, every other one streamed, CONCURRENCY at a time, within BUDGET_MS. */
async function sendCalls(base: string, key: string, calls: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const deadline = Date.now() + BUDGET_MS;
  let sent = 0;
  let answered = 0;
  const worker = async () => {
    while (sent < calls && Date.now() < deadline) {
      const stream = sent++ % 2 === 1;
      const status = await call(agent, `${base}/v1/chat/completions`, key, stream);
      if (status !== 200) throw new Error(`a rehearsal call answered HTTP ${status}`);
      answered++;
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    agent.destroy();
  }
  return answered;
}

function call(agent: Agent, url: string, key: string, stream: boolean): Promise<number> {
  const body = JSON.stringify({ model: 'rehearsal', messages: [{ role: 'user', content: 'Say hello.' }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) });
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
