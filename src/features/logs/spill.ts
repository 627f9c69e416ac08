/**
 * Spill files: the call-log records the store did not take by the shutdown deadline (PostgreSQL
 * unreachable, the SQLite worker down) are kept in `GATEWAY_DATA_DIR/log-spill/` and stored at
 * the next start (spill-replay.ts), so a stop during an outage costs no log or billing row.
 *
 * A file holds one JSON `LogRecord` per line, bodies included (the store would have kept them;
 * the directory is 0700 and the file 0600, like gateway.db). It is written under a temporary
 * name, fsync'ed, then renamed into place (writeFileAtomic), so a reader, another instance
 * sharing the volume included, sees a whole file or none. Its name `<ms>-<pid>-<random>.jsonl`
 * is new for every write: two processes (cluster workers, instances on one volume) never share
 * a file. Storing a file twice is harmless: both stores ignore an id they already hold, and the
 * rollups count only the rows really inserted.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/write/atomic-write.ts';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../../kernel/private-files.ts';
import type { LogRecord } from './types.ts';

/** The spill directory's name under the data directory. */
export const SPILL_DIR = 'log-spill';
const SPILL_NAME = /^\d+-\d+-[0-9a-f]{12}\.jsonl$/;

/** `dataDir/log-spill`. */
export const spillDirOf = (dataDir: string): string => join(dataDir, SPILL_DIR);

/**
 * Writes `records` to a new spill file in `dir` (created 0700 when missing) and returns its path.
 * Rejects when the file cannot be written (read-only or full disk): nothing is half-written then.
 */
export async function writeSpillFile(dir: string, records: readonly LogRecord[]): Promise<string> {
  await makePrivateDir(dir);
  const file = join(dir, `${Date.now()}-${process.pid}-${randomBytes(6).toString('hex')}.jsonl`);
  const text = records.map((record) => `${JSON.stringify(record)}\n`).join('');
  await writeFileAtomic(file, text, PRIVATE_FILE_MODE);
  return file;
}

/** The spill files in `dir`, oldest first (none when the directory does not exist). */
export async function listSpillFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  // The temporary files of a write in progress (`.<name>.<random>.tmp`) do not match.
  return names
    .filter((name) => SPILL_NAME.test(name))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    .map((name) => join(dir, name));
}

export interface SpillFileContent {
  records: LogRecord[];
  /** Lines that are not a record (the file was damaged after it was written). */
  unreadable: number;
}

/** Reads a spill file; null when it is gone (another process stored and deleted it first). */
export async function readSpillFile(file: string): Promise<SpillFileContent | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return parseSpillText(text);
}

/** The records of spill text (one JSON record per line; spill-redis.ts keeps the same in Redis). */
export function parseSpillText(text: string): SpillFileContent {
  const records: LogRecord[] = [];
  let unreadable = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const record = parseRecord(line);
    if (record) records.push(record);
    else unreadable++;
  }
  return { records, unreadable };
}

function parseRecord(line: string): LogRecord | undefined {
  try {
    const value = JSON.parse(line) as Partial<LogRecord> | null;
    const ok = typeof value === 'object' && value !== null && typeof value.id === 'string' && typeof value.created_at === 'number';
    return ok ? (value as LogRecord) : undefined;
  } catch {
    return undefined;
  }
}
