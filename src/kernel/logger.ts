/**
 * A small structured logger: one JSON line per event on stderr. Never pass secrets in fields.
 *
 * Lines logged while a traced request runs (`withLogFields`, from the pipeline) carry its
 * `trace_id` and `span_id`, so a log line leads to its trace; the fields follow the request's
 * async work (AsyncLocalStorage), and its stream's relay (`keepLogFields`) to the call log at its end.
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

/**
 * The log fields in force now, for work that someone else starts later: a streamed answer's relay
 * is started by the server writing the response, outside the request's async context, yet logs
 * for the request (a resumed stream, its completion).
 */
export function keepLogFields(): <T>(work: () => T) => T {
  const fields = contextFields.getStore();
  return fields ? (work) => contextFields.run(fields, work) : (work) => work();
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
