/**
 * Crash-safe file replacement: write a temp file in the same directory, fsync it, rename it over
 * the target (atomic on POSIX), then fsync the directory so the rename itself survives a crash.
 * A reader (or the hot-reload watcher) sees the old content or the new one, never half of it.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** Atomically replaces `file` with `text` (`mode` applies to the new file, e.g. 0o600 for secrets). */
export async function writeFileAtomic(file: string, text: string, mode = 0o644): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  // Directory fsync is best effort: not every platform or filesystem allows opening a directory.
  try {
    const dirHandle = await open(dir, 'r');
    await dirHandle.sync().finally(() => dirHandle.close());
  } catch {
    /* see above */
  }
}
