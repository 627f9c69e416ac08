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
 * Its objects are made by the code that makes the real ones (runtimeOf, logServiceOf, openConfig,
 * the real services' order, the real config's key order, the bodies clients send): V8 keeps, per
 * code site, every object shape it met, so shapes of the rehearsal's own would stay in every real
 * request's path (bench/README.md, issue 37, eighth session).
 *
 * Nothing of the rehearsal is seen or kept: it runs on a config of its own (one compat provider,
 * one model, one random key and account) and a runtime with its own memory store, a call-log queue
 * whose store discards the rows, a metrics registry of its own that nothing scrapes, no usage
 * counters in the real store (the real settings reader is only read, for its random account),
 * untraced, on a port of its own that closes before the gateway's opens. A rehearsal that fails
 * only costs its warmth: the start goes on (a warning says why).
 */
import { Agent, request as httpRequest } from 'node:http';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { H3, type H3Event } from 'h3';
import { serve } from 'srvx';
import { openConfig } from '../config/holder.ts';
import { loadConfigText } from '../config/load.ts';
import { hashApiKey } from '../config/keys.ts';
import type { Snapshot } from '../config/snapshot.ts';
import type { GatewayConfig } from '../config/types.ts';
import { chatBody, handleInference } from '../features/inference/routes.ts';
import { createLogQueue } from '../features/logs/queue.ts';
import { logServiceOf, type LogService } from '../features/logs/service.ts';
import type { LogStore } from '../features/logs/types.ts';
import { createMetrics } from '../features/metrics/service.ts';
import { requestIp } from '../http/client-ip.ts';
import { safe } from '../http/handle.ts';
import type { Logger } from '../kernel/logger.ts';
import type { Gateway, Generation } from '../pipeline/gateway.ts';
import { buildPipeline } from '../pipeline/pipeline.ts';
import { runtimeOf } from '../pipeline/runtime.ts';
import type { Services } from '../pipeline/services.ts';
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

/**
 * The rehearsal's config: one compat provider, model, group, account and key, the defaults for the
 * rest, its keys at every depth in the order the real config has them (the order of a YAML file
 * and of the defaults filled in after it): config objects of the same keys are then one shape to
 * V8 in the rehearsal and in real calls. JSON is YAML: it is loaded as gateway.yaml is.
 */
function rehearsalConfigFile(endpoint: string, key: string, real: GatewayConfig): string {
  // An account id no real one has: the real settings reader is asked for it (rehearsalServices).
  const account = `rehearsal-${randomBytes(8).toString('hex')}`;
  const own = loadConfigText(JSON.stringify({
    providers: [{ id: 'rehearsal', name: 'Rehearsal', type: 'compat', endpoint, api_key: 'rehearsal', models: ['rehearsal'] }],
    models: [{ id: 'rehearsal', name: 'Rehearsal', provider: 'rehearsal', context_length: 8192, input_price: 0.001, output_price: 0.002 }],
    groups: [{ id: 'rehearsal', name: 'Rehearsal', priority: 0, quota_limit: 0 }],
    accounts: [{ id: account, email: 'rehearsal@localhost.invalid', name: 'Rehearsal', role: 'member', group: 'rehearsal' }],
    keys: [{ id: 'rehearsal', name: 'Rehearsal', key_hash: hashApiKey(key), account }],
    routing: { retries: 0 },
  }), '(rehearsal)', {});
  if (!own.ok) throw new Error(own.problems.map((p) => p.message).join('; '));
  return JSON.stringify(orderedLike(own.config, real));
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `value` with the keys of each object in the order `like` has them (the keys `like` lacks last); a list's items like its first. */
export function orderedLike(value: unknown, like: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => orderedLike(item, Array.isArray(like) ? like[0] : undefined));
  if (!isRecord(value)) return value;
  const model = isRecord(like) ? like : {};
  const keys = [...Object.keys(model).filter((name) => Object.hasOwn(value, name)), ...Object.keys(value).filter((name) => !Object.hasOwn(model, name))];
  return Object.fromEntries(keys.map((name) => [name, orderedLike(value[name], model[name])]));
}

/** Runs the rehearsal; resolves with the number of calls answered (never rejects). */
export async function rehearse(gateway: Pick<Gateway, 'runtime' | 'writer'>, logger: Logger, calls: number): Promise<number> {
  if (calls <= 0) return 0;
  const closers: Array<() => unknown> = [];
  try {
    const upstream = await startRehearsalUpstream();
    closers.push(() => upstream.close());
    const key = `sk-rehearsal-${randomBytes(16).toString('hex')}`;
    // A config file of its own, opened as gateway.yaml is: its holder and generations are made by
    // the same code as the real ones, so V8 sees the same shapes in both.
    const dir = await mkdtemp(join(tmpdir(), 'gateway-rehearsal-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'rehearsal.yaml');
    await writeFile(file, rehearsalConfigFile(upstream.url, key, gateway.runtime.current().config));
    const store = createMemoryStore();
    closers.push(() => store.close());
    const discarded = discardingLogStore();
    let snapshot: Snapshot | undefined;
    const logs = rehearsalLogService(discarded.store, gateway.runtime.current().config.logs, logger);
    closers.push(() => logs.close());
    const runtime = runtimeOf({ ...gateway.runtime, store, services: rehearsalServices(gateway.runtime.services, logs), current: () => snapshot! });
    const deps = { runtime, logger, now: () => Date.now() };
    const config = await openConfig<Generation>({
      file,
      env: {},
      logger,
      watch: false,
      build: async (built) => {
        snapshot = built;
        return { snapshot: built, pipeline: await buildPipeline(built.config.pipeline, deps, built.file, builtinPlugins, { traced: false }) };
      },
      release: (generation) => generation.pipeline.close(),
    });
    closers.push(() => config.close());
    const rehearsal: Gateway = { runtime, config, writer: gateway.writer };
    const { server: serverConfig } = config.current().snapshot.config;
    // As src/server.ts mounts an inference route.
    const app = new H3();
    app.post('/v1/chat/completions', safe(logger, (event: H3Event) => handleInference(rehearsal, event.req, requestIp(event.req, serverConfig.trusted_proxies), 'chat', chatBody)));
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
    await logs.queue.flush();
    logger.info('start rehearsal done', { calls: answered, logged: discarded.rows(), ms: Date.now() - started });
    return answered;
  } catch (error) {
    logger.warn('the start rehearsal failed: the first requests will be slower', { error: String(error) });
    return 0;
  } finally {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => {});
  }
}

/**
 * The real services in their order (the features', as boot merged them), those that would record
 * the rehearsal swapped for its own: the call log, the metrics and the early refusals' counter.
 * The others (the account settings reader) are only read, for an account no real one is.
 */
function rehearsalServices(real: Services, logs: LogService): Services {
  const metrics = createMetrics('rehearsal_');
  return Object.assign({ healthProbes: [] }, real, { healthProbes: [], logs, metrics, earlyRefusals: { count: () => {} } });
}

/**
 * A log service made as the real one is (logServiceOf, its queue's options in the same order),
 * around a store that keeps nothing; the queue sized as the real one.
 */
function rehearsalLogService(store: LogStore, config: GatewayConfig['logs'], logger: Logger): LogService {
  const queue = createLogQueue(store, {
    batchSize: config.batch_size,
    flushIntervalMs: config.flush_interval_ms,
    max: config.queue_max,
    closeTimeoutMs: 1_000,
    spill: async () => {},
    logger,
  });
  const replay = { done: Promise.resolve(), stop: () => {}, refused: 0 };
  const retention = { runOnce: async () => 0, stop: async () => {} };
  return logServiceOf({ store, queue, retention, replay, redisSpill: undefined, queueMax: config.queue_max }, logger);
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
  // The bodies most clients send (OpenAI's SDKs pass the caller's fields as they are): a key that
  // real calls leave out (`stream: false`) would give V8 a shape they never have.
  const messages = [{ role: 'user', content: 'Say hello.' }];
  const body = JSON.stringify(stream ? { model: 'rehearsal', messages, stream } : { model: 'rehearsal', messages });
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
