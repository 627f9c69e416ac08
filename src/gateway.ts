/**
 * The running gateway: loads gateway.yaml, owns the runtime services, and swaps config
 * snapshots (with their precomposed pipelines) on reload without dropping requests.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loadConfigFile } from './config/load.ts';
import type { GatewayConfig } from './config/types.ts';
import { formatProblem } from './config/problems.ts';
import { watchConfig } from './config/watch.ts';
import type { Logger } from './pipeline/types.ts';
import { buildPipeline, type Pipeline } from './pipeline/pipeline.ts';
import { createAdapterRegistry } from './providers/index.ts';
import { createTransport } from './providers/transport.ts';
import type { ReloadStatus, Runtime, Snapshot } from './runtime.ts';
import { buildSnapshot } from './snapshot.ts';
import { restartOnlyChanges } from './config/restart-only.ts';
import { createStore } from './store/index.ts';
import type { StateStore } from './store/types.ts';

export interface GatewayOptions {
  configFile: string;
  env?: NodeJS.ProcessEnv;
  logger: Logger;
  /** Watch the file for changes (off in some tests). */
  watch?: boolean;
  store?: StateStore;
}

/** The config generation in force: swapped as one object so a request sees a consistent pair. */
export interface Generation {
  snapshot: Snapshot;
  pipeline: Pipeline;
}

export interface Gateway {
  readonly runtime: Runtime;
  /** The environment the config was loaded with (`${VAR}` values), for dry-run validation of edits. */
  readonly env: NodeJS.ProcessEnv;
  /** The file watcher (null when watching is off); the management API tells it about its own writes. */
  readonly watcher?: ReturnType<typeof watchConfig> | null;
  readonly current: Generation;
  /**
   * Applies the file's content. `loaded` is that content already loaded by the caller (the
   * management writer, which just wrote and validated it): the file is then not read again.
   */
  reload(loaded?: GatewayConfig): Promise<ReloadStatus>;
  close(): Promise<void>;
}

async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
  return pkg.version as string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.join('\n')}`);
    this.name = 'ConfigError';
  }
}

export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const env = options.env ?? process.env;
  const file = resolve(options.configFile);
  const { logger } = options;
  const first = await loadConfigFile(file, env);
  if (!first.ok) throw new ConfigError(first.problems.map(formatProblem));
  /** What the process started with: startup-only settings stay as they were here. */
  const startup = first.config;

  const port = Number(env.PORT ?? first.config.server.port);
  const services: Record<string, unknown> = {};
  const runtime: Runtime & { snapshot: Snapshot; lastReload: ReloadStatus | null } = {
    snapshot: buildSnapshot(first.config, file, 1),
    store: options.store ?? (await createStore(env)),
    transport: createTransport(),
    adapters: createAdapterRegistry(),
    version: await packageVersion(),
    startedAt: Date.now(),
    lastReload: null,
    masterKey: env.GATEWAY_MASTER_KEY || undefined,
    dataDir: resolve(env.GATEWAY_DATA_DIR ?? './data'),
    baseUrl: (env.GATEWAY_BASE_URL ?? first.config.server.base_url ?? `http://localhost:${port}`).replace(/\/$/, ''),
    services,
  };
  // Read at each call (not a captured Date.now), so a test's fake clock reaches the plugins.
  const deps = { runtime, logger, now: () => Date.now() };
  let current: Generation = { snapshot: runtime.snapshot, pipeline: await buildPipeline(first.config.pipeline, deps, file) };
  let reloading: Promise<ReloadStatus> | null = null;

  async function applyReload(preloaded?: GatewayConfig): Promise<ReloadStatus> {
    const at = new Date().toISOString();
    const loaded = preloaded ? ({ ok: true, config: preloaded, file } as const) : await loadConfigFile(file, env);
    let status: ReloadStatus;
    if (!loaded.ok) {
      const problems = loaded.problems.map(formatProblem);
      for (const problem of problems) logger.error('config reload refused', { problem });
      status = { at, ok: false, error: problems.join('\n') };
    } else {
      try {
        const snapshot = buildSnapshot(loaded.config, file, current.snapshot.version + 1);
        const pipeline = await buildPipeline(loaded.config.pipeline, deps, file);
        const previous = current;
        current = { snapshot, pipeline };
        runtime.snapshot = snapshot;
        // In-flight requests keep the old pipeline; release it once they are done.
        void previous.pipeline.close();
        logger.info('config reloaded', { version: snapshot.version });
        status = { at, ok: true, error: null };
        const pending = restartOnlyChanges(startup, loaded.config);
        if (pending.length) {
          logger.warn('restart required to apply', { settings: pending });
          status.restart_required = pending;
        }
      } catch (error) {
        logger.error('config reload refused', { problem: (error as Error).message });
        status = { at, ok: false, error: (error as Error).message };
      }
    }
    runtime.lastReload = status;
    return status;
  }

  const gateway: Gateway = {
    runtime,
    env,
    get current() {
      return current;
    },
    reload(loaded) {
      // Serialise reloads: a burst of file events applies the newest content once each.
      const apply = () => applyReload(loaded);
      const next = (reloading ?? Promise.resolve()).then(apply, apply);
      reloading = next;
      return next;
    },
    async close() {
      await watcher?.close();
      await current.pipeline.close();
      for (const service of Object.values(services)) await (service as { close?: () => unknown }).close?.();
      await runtime.transport.close();
      await runtime.store.close();
    },
  };
  const watcher = options.watch === false ? null : watchConfig(file, () => void gateway.reload());
  return Object.assign(gateway, { watcher });
}
