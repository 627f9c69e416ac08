/**
 * Messages between the threaded SQLite log store (sqlite-threaded.ts, main thread) and its
 * worker (sqlite-worker.ts). Everything crosses by structured clone, so only plain data:
 * LogRecord and the store's results are numbers, strings, booleans, null, arrays and objects.
 */
import type { LogStore } from './types.ts';

/** The LogStore methods the worker answers (`kind` is a constant; `migrate` included). */
export type StoreMethod = Exclude<keyof LogStore, 'kind'>;

export const STORE_METHODS: readonly StoreMethod[] = [
  'migrate', 'insertBatch', 'list', 'get', 'breakdown', 'deleteOlderThan', 'rollup', 'ping', 'close',
];

/** One call, main thread to worker. */
export interface StoreRequest {
  id: number;
  method: StoreMethod;
  args: unknown[];
}

/** An error as it crosses the thread boundary: re-created on the main thread. */
export interface WireError {
  name: string;
  message: string;
  code?: string;
}

/** The answer to the request with the same `id`, worker to main thread. */
export type StoreReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: WireError };

/** Flattens any thrown value into a cloneable error description. */
export function toWireError(error: unknown): WireError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
  }
  return { name: 'Error', message: String(error) };
}

/** Re-creates a thrown error from its wire form (name and `code` kept, e.g. SQLITE_BUSY). */
export function fromWireError(wire: WireError): Error {
  const error = new Error(wire.message);
  error.name = wire.name;
  if (wire.code !== undefined) (error as Error & { code?: string }).code = wire.code;
  return error;
}
