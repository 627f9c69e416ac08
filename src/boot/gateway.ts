/**
 * Assembles a running gateway, in the order that also fixes shutdown: the state store, the
 * upstream transport, the config in force (each generation with its composed pipeline), the
 * config writer and its cross-instance follower, counter persistence, then the features of the
 * table (src/boot/features.ts). `close()` undoes it in reverse, after the in-flight requests:
 * at a process's shutdown it waits for them up to the drain deadline, then ends those left.
 */
import { resolve } from 'node:path';
import { openConfig } from '../config/holder.ts';
import { createConfigWriter, followConfigChanges } from '../config/write/write-back.ts';
import type { Installed } from '../http/feature.ts';
import type { Logger } from '../kernel/logger.ts';
import { initTracing } from '../pipeline/tracing.ts';
import type { Gateway, Generation } from '../pipeline/gateway.ts';
import { buildPipeline } from '../pipeline/pipeline.ts';
import { runtimeOf } from '../pipeline/runtime.ts';
import type { Services } from '../pipeline/services.ts';
import type { Snapshot } from '../config/snapshot.ts';
import { builtinPlugins } from '../plugins/index.ts';
import { createAdapterRegistry } from '../providers/index.ts';
import { createTransport } from '../providers/transport.ts';
import { persistCounters } from '../quota/persist-counters.ts';
import { createStore } from '../store/index.ts';
import type { StateStore } from '../store/types.ts';
import { installFeatures } from './features.ts';
import { retireRemovedAccounts } from '../features/admin/account-ids.ts';
import { acceptedMasterKey } from './master-key.ts';
import { gatewayVersion } from './version.ts';
import { millisecondsFromEnv } from '../kernel/env-duration.ts';

export interface GatewayOptions {
  configFile: string;
  env?: NodeJS.ProcessEnv;
  logger: Logger;
  /** Watch the file for changes (off in some tests). */
  watch?: boolean;
  store?: StateStore;
}

/** A gateway with its features installed. */
export interface RunningGateway extends Gateway {
  /** In install order. */
  readonly features: readonly Installed[];
  /**
   * Waits for the requests in flight, then releases everything, last built first. With
   * `shutdown` (the process is stopping) the wait is bounded: see {@link ShutdownOptions}.
   */
  close(shutdown?: ShutdownOptions): Promise<void>;
}

/**
 * A process shutdown (SIGTERM): the server stops accepting, the requests in flight get
 * `drainTimeoutMs` to finish; then their upstream calls are ended (a stream's last event is the
 * `server_shutting_down` error, a waiting call answers 503 with that code) and they complete and
 * are logged as far as they got; connections still open a moment later are cut. Then the call
 * log is flushed and the rest closed, well within an orchestrator's grace period.
 */
export interface ShutdownOptions {
  /** Stop accepting connections; settles once every open one has ended. */
  stopListening(): Promise<void>;
  /** Destroy the connections still open (a client that stopped reading). */
  cutConnections(): void;
  drainTimeoutMs: number;
}

/**
 * The default drain deadline: with the manifests' 60 s grace period (and compose's
 * `stop_grace_period`), minus the 5 s preStop, it leaves room to end, log and flush.
 */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
/** After the deadline: how long the ended requests get to send their last event, then to be logged. */
export const END_GRACE_MS = 2_000;

/** `GATEWAY_DRAIN_TIMEOUT_MS` (milliseconds, default 30 s); anything but a number >= 0 stops the start. */
export const drainTimeoutFrom = (env: NodeJS.ProcessEnv) => millisecondsFromEnv(env, 'GATEWAY_DRAIN_TIMEOUT_MS', DEFAULT_DRAIN_TIMEOUT_MS);

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function createGateway(options: GatewayOptions): Promise<RunningGateway> {
  const env = options.env ?? process.env;
  const { logger } = options;
  const version = await gatewayVersion();
  await initTracing(logger, version, env);
  // Redis outages and recoveries go to the JSON log like everything else.
  const store = options.store ?? (await createStore(env, (message) => logger.warn(message)));
  const transport = createTransport();
  const closers: Array<() => unknown> = [() => store.close(), () => transport.close()];
  let config: Gateway['config'] | undefined;
  /** The requests in flight are over (their connections closed, their log records made). */
  const drain = async (shutdown: ShutdownOptions) => {
    // The connections first, so that no request can arrive once the pipeline is released.
    const over = shutdown
      .stopListening()
      .catch(() => {})
      .then(() => config?.close());
    if (await settlesWithin(over, shutdown.drainTimeoutMs)) return;
    logger.warn('drain deadline passed: ending the requests still in flight', { drain_timeout_ms: shutdown.drainTimeoutMs });
    transport.stop();
    if (await settlesWithin(over, END_GRACE_MS)) return;
    shutdown.cutConnections();
    if (await settlesWithin(over, END_GRACE_MS)) return;
    logger.error('requests still open after the drain deadline: flushing the call log without them');
  };
  const close = async (shutdown?: ShutdownOptions) => {
    // The config first: it stops the watcher and waits for the requests still in the pipeline,
    // whose last steps (the call log) still write into the features and the store.
    if (shutdown) await drain(shutdown);
    else await config?.close();
    for (const closeNext of closers.reverse()) await closeNext();
    closers.length = 0;
  };
  try {
    const services: Services = { healthProbes: [] };
    /** The first snapshot while its pipeline is set up (plugins may read the config in `setup`). */
    let starting: Snapshot | undefined;
    const runtime = runtimeOf({
      current: () => (config ? config.current().snapshot : starting!),
      lastReload: () => config!.lastReload(),
      store,
      transport,
      adapters: createAdapterRegistry(),
      version,
      startedAt: Date.now(),
      masterKey: acceptedMasterKey(env, logger),
      dataDir: resolve(env.GATEWAY_DATA_DIR ?? './data'),
      baseUrl: '',
      services,
    });
    // Read at each call (not a captured Date.now), so a test's fake clock reaches the plugins.
    const deps = { runtime, logger, now: () => Date.now() };
    config = await openConfig<Generation>({
      file: options.configFile,
      env,
      logger,
      watch: options.watch !== false,
      build: async (snapshot) => {
        starting ??= snapshot;
        return { snapshot, pipeline: await buildPipeline(snapshot.config.pipeline, deps, snapshot.file, builtinPlugins) };
      },
      release: (generation) => generation.pipeline.close(),
      reloaded: (next, previous) => {
        retireRemovedAccounts(store, previous.snapshot, next.snapshot).catch((error: unknown) =>
          logger.error('could not retire the ids of removed accounts', { error: String(error) }),
        );
      },
    });
    const { server } = config.current().snapshot.config;
    const port = Number(env.PORT ?? server.port);
    // Known once the first config is loaded; plugins set up for it do not read it.
    Object.assign(runtime, { baseUrl: (env.GATEWAY_BASE_URL ?? server.base_url ?? `http://localhost:${port}`).replace(/\/$/, '') });

    const writer = createConfigWriter({ config, store, masterKey: runtime.masterKey }, logger);
    if (store.kind === 'redis') closers.push(await followConfigChanges({ config, store, masterKey: runtime.masterKey }, writer, logger));
    const counters = await persistCounters(runtime, logger);
    closers.push(() => counters.close());

    const gateway: Gateway = { runtime, config, writer };
    const features = await installFeatures({ gateway, runtime, logger, env }, closers);
    return { ...gateway, features, close };
  } catch (error) {
    await close();
    throw error;
  }
}
