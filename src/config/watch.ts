/**
 * Hot reload trigger for gateway.yaml. Watches the file's *directory*, not the file: editors save by
 * writing a temp file and renaming it over the original, and Kubernetes ConfigMaps swap a `..data`
 * symlink, and in both cases a watch on the old inode would go silent. Every event is debounced,
 * then the content is hashed; only a content change (not a touch, not the gateway's own write)
 * calls `onChange`.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface ConfigWatcher {
  /** Resolves once the watch is in place and the current content is known. */
  readonly ready: Promise<void>;
  /**
   * Marks `text` as written by the gateway itself (management write-back): when the file next
   * holds exactly this content, no change is reported.
   */
  ignoreNextContent(text: string): void;
  close(): Promise<void>;
}

export interface WatchOptions {
  /** Quiet period after the last event before the file is read (ms, default 100). */
  debounceMs?: number;
  /** Errors of the watcher or of `onChange` (default: console.error). */
  onError?: (err: unknown) => void;
  /**
   * contentHash of the text the caller loaded, read before it loaded it: a change made while the
   * caller was still starting (before the watch was in place) is then reported once ready.
   */
  loadedHash?: string | null;
}

/** sha256 hex of a config text, as the watcher compares it. */
export function contentHash(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Calls `onChange` (awaited, never twice at once) after the content of `file` changes.
 * @example
 * const watcher = watchConfig('gateway.yaml', async () => { const r = await loadConfigFile('gateway.yaml'); ... });
 * watcher.ignoreNextContent(yamlWeAreAboutToWrite);
 */
export function watchConfig(file: string, onChange: () => void | Promise<void>, options: WatchOptions = {}): ConfigWatcher {
  const abs = path.resolve(file);
  const dir = path.dirname(abs);
  const base = path.basename(abs);
  const debounceMs = options.debounceMs ?? 100;
  const onError = options.onError ?? ((err: unknown) => console.error('config watch:', err));

  let lastHash: string | null = null;
  const selfWritten = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  // Checks run one after another so that a slow reload never overlaps the next one.
  let queue: Promise<void> = Promise.resolve();

  // Only the file itself and Kubernetes' `..data` / `..<timestamp>` entries matter; ignoring the rest
  // keeps chokidar from tracking unrelated files next to the config.
  const relevant = (p: string) => p === dir || path.basename(p) === base || path.basename(p).startsWith('..');
  // chokidar is loaded here, with the first watch: a gateway that does not watch never loads it.
  const watcher = import('chokidar').then(({ watch }) => {
    const watching = watch(dir, { depth: 0, ignoreInitial: true, ignored: (p: string) => !relevant(path.resolve(p)) });
    watching.on('all', schedule);
    watching.on('error', onError);
    return watching;
  });

  const ready = Promise.all([
    watcher.then((watching) => new Promise<void>((resolve) => watching.once('ready', () => resolve()))),
    read().then((hash) => {
      lastHash ??= options.loadedHash ?? hash;
    }),
  ]).then(() => {
    if (options.loadedHash && lastHash === options.loadedHash) schedule();
  });

  function schedule(): void {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      queue = queue.then(check).catch(onError);
    }, debounceMs);
  }

  async function check(): Promise<void> {
    if (closed) return;
    const hash = await read();
    // Missing mid-swap (rename-on-save, symlink flip): the completing event schedules another check.
    if (hash === null || hash === lastHash) return;
    lastHash = hash;
    if (selfWritten.delete(hash)) return;
    await onChange();
  }

  async function read(): Promise<string | null> {
    try {
      return contentHash(await readFile(abs));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  return {
    ready,
    ignoreNextContent(text: string) {
      const hash = contentHash(text);
      // Rewriting the current content causes no change to ignore; keeping it would swallow a later revert.
      if (hash !== lastHash) selfWritten.add(hash);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await (await watcher).close();
      await queue;
    },
  };
}
