/**
 * The one handle on the config in force: loads gateway.yaml at start, watches it, and swaps in a
 * new generation on reload without dropping a request (requests keep the generation they started
 * with). A generation is the snapshot plus whatever the caller builds from it (boot: the
 * precomposed pipeline); building one that fails keeps the running one.
 */
import { resolve } from 'node:path';
import type { Logger } from '../kernel/logger.ts';
import { loadConfigFile, locateInFile, type ConfigProblem, type LoadResult } from './load.ts';
import { ConfigPathError, formatProblem } from './problems.ts';
import { restartOnlyChanges } from './restart-only.ts';
import { buildSnapshot, type Snapshot } from './snapshot.ts';
import type { GatewayConfig } from './types.ts';
import { contentHash, watchConfig, type ConfigWatcher } from './watch.ts';
import { readFile } from 'node:fs/promises';

export interface ReloadStatus {
  at: string;
  ok: boolean;
  error: string | null;
  /** Startup-only settings the reload changed: they apply after a restart. */
  restart_required?: string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface ConfigHolder<G extends { snapshot: Snapshot }> {
  /** Absolute path of gateway.yaml. */
  readonly file: string;
  /** The environment `${VAR}` values come from (management dry runs load edits with it too). */
  readonly env: NodeJS.ProcessEnv;
  /** The watcher (null when watching is off); the management writer tells it about its own writes. */
  readonly watcher: ConfigWatcher | null;
  /** The generation in force now. */
  current(): G;
  lastReload(): ReloadStatus | null;
  /**
   * Applies the file's content. `loaded` is that content already loaded by the caller (the
   * management writer, which just wrote and validated it): the file is then not read again.
   */
  reload(loaded?: GatewayConfig): Promise<ReloadStatus>;
  /** Stops watching and releases the generation in force. */
  close(): Promise<void>;
}

export interface HolderOptions<G> {
  file: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  watch: boolean;
  /** Builds a generation from a snapshot; a throw refuses the reload (the message is logged). */
  build(snapshot: Snapshot): Promise<G>;
  /** Releases a generation once it is no longer in force (in-flight requests may still use it). */
  release(generation: G): Promise<void>;
  /** Told of each reload that took effect, once the new generation is in force. */
  reloaded?(next: G, previous: G): void;
}

export async function openConfig<G extends { snapshot: Snapshot }>(options: HolderOptions<G>): Promise<ConfigHolder<G>> {
  const { env, logger } = options;
  const file = resolve(options.file);
  // Read before the load: an edit landing while the first generation builds is reloaded once the
  // watch is in place (a ConfigMap swap during a slow start would otherwise wait for the next edit).
  const loadedHash = options.watch ? await readFile(file).then(contentHash, () => null) : null;
  const first = await loadConfigFile(file, env);
  if (!first.ok) throw new ConfigError(first.problems.map(formatProblem));
  warnIgnored(first.warnings, logger);
  /** What the process started with: startup-only settings stay as they were here. */
  const startup = first.config;
  /** A generation for `config`; a refusal about places in the file comes back located. */
  async function build(config: GatewayConfig, version: number): Promise<G> {
    try {
      return await options.build(buildSnapshot(config, file, version));
    } catch (error) {
      if (error instanceof ConfigPathError) throw new ConfigError((await locateInFile(file, error.problems)).map(formatProblem));
      throw error;
    }
  }

  let current = await build(first.config, 1);
  let lastReload: ReloadStatus | null = null;
  let reloading: Promise<ReloadStatus> | null = null;

  async function applyReload(preloaded?: GatewayConfig): Promise<ReloadStatus> {
    const at = new Date().toISOString();
    const loaded: LoadResult = preloaded ? { ok: true, config: preloaded, file } : await loadConfigFile(file, env);
    let status: ReloadStatus;
    if (!loaded.ok) {
      const problems = loaded.problems.map(formatProblem);
      for (const problem of problems) logger.error('config reload refused', { problem });
      status = { at, ok: false, error: problems.join('\n') };
    } else {
      try {
        warnIgnored(loaded.warnings, logger);
        const next = await build(loaded.config, current.snapshot.version + 1);
        const previous = current;
        current = next;
        // In-flight requests keep the old generation; it is released once they are done.
        void options.release(previous);
        options.reloaded?.(next, previous);
        logger.info('config reloaded', { version: next.snapshot.version });
        status = { at, ok: true, error: null };
        const pending = restartOnlyChanges(startup, loaded.config);
        if (pending.length) {
          logger.warn('restart required to apply', { settings: pending });
          status.restart_required = pending;
        }
      } catch (error) {
        const problems = error instanceof ConfigError ? error.problems : [(error as Error).message];
        for (const problem of problems) logger.error('config reload refused', { problem });
        status = { at, ok: false, error: problems.join('\n') };
      }
    }
    lastReload = status;
    return status;
  }

  const holder: ConfigHolder<G> = {
    file,
    env,
    watcher: null,
    current: () => current,
    lastReload: () => lastReload,
    reload(loaded) {
      // Serialise reloads: a burst of file events applies the newest content once each.
      const apply = () => applyReload(loaded);
      const next = (reloading ?? Promise.resolve()).then(apply, apply);
      reloading = next;
      return next;
    },
    async close() {
      await watcher?.close();
      await options.release(current);
    },
  };
  const watcher = options.watch
    ? watchConfig(file, () => void holder.reload(), { loadedHash, onError: (error) => logger.warn('config watch failed', { error: String(error) }) })
    : null;
  return Object.assign(holder, { watcher });
}

/** A config of a newer version: each field this gateway ignored, once per load (version.ts). */
function warnIgnored(warnings: readonly ConfigProblem[] | undefined, logger: Logger): void {
  for (const warning of warnings ?? []) logger.warn('config field ignored', { problem: formatProblem(warning) });
}
