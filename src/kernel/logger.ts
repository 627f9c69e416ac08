/**
 * A small structured logger: one JSON line per event on stderr. Never pass secrets in fields.
 *
 * Lines logged while a traced request runs (`withLogFields`, from the pipeline) carry its
 * `trace_id` and `span_id`, so a log line leads to its trace; the fields follow the request's
 * async work (AsyncLocalStorage), its stream's end and the call log included.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { own } from './own.ts';

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

type Level = 'info' | 'warn' | 'error';
const ORDER: Record<Level | 'silent', number> = { info: 0, warn: 1, error: 2, silent: 3 };

/** Fields every line logged within the current async context carries (a traced request's ids). */
const contextFields = new AsyncLocalStorage<Record<string, string>>();

/** Runs `work` so that every line logged within it, and the async work it starts, carries `fields`. */
export function withLogFields<T>(fields: Record<string, string>, work: () => T): T {
  return contextFields.run(fields, work);
}

/** `LOG_LEVEL` any case (`WARN` as `warn`); a name it does not know (`debug`) logs from info up. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  const min = own(ORDER, level.toLowerCase()) ?? 0;
  const write = (lvl: Level) => (message: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    const line = { level: lvl, time: new Date().toISOString(), msg: message, ...contextFields.getStore(), ...fields };
    process.stderr.write(`${JSON.stringify(line)}\n`);
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}
