/**
 * Files under the data directory hold prompts, answers, client addresses and signing keys: they are
 * readable by the gateway's own user only (files 0600, directories the gateway creates 0700),
 * whatever the process umask. A directory that already exists keeps its mode (it may be a mounted
 * volume whose group access the platform manages); the files in it are still private.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

export async function makePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Startup only (sync): the directory of a file about to be opened by a synchronous library. */
export function makePrivateDirSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates `file` empty and private when missing, and makes it (and `companions`, such as SQLite's
 * -wal and -shm, when present) private when an earlier version left them readable. SQLite gives
 * the -wal and -shm files it creates the mode of the database file.
 */
export function makePrivateFileSync(file: string, companions: string[] = []): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const path of [file, ...companions]) if (existsSync(path)) chmodSync(path, PRIVATE_FILE_MODE);
}
