/**
 * A small structured logger: one JSON line per event on stderr. Never pass secrets in fields.
 */
import { own } from './own.ts';

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

type Level = 'info' | 'warn' | 'error';
const ORDER: Record<Level | 'silent', number> = { info: 0, warn: 1, error: 2, silent: 3 };

/** `LOG_LEVEL` any case (`WARN` as `warn`); a name it does not know (`debug`) logs from info up. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  const min = own(ORDER, level.toLowerCase()) ?? 0;
  const write = (lvl: Level) => (message: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    process.stderr.write(`${JSON.stringify({ level: lvl, time: new Date().toISOString(), msg: message, ...fields })}\n`);
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}
