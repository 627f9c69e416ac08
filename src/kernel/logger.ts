/**
 * A small structured logger: one JSON line per event on stderr. Never pass secrets in fields.
 */

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

type Level = 'info' | 'warn' | 'error';
const ORDER: Record<Level | 'silent', number> = { info: 0, warn: 1, error: 2, silent: 3 };

export function createLogger(level: Level | 'silent' = (process.env.LOG_LEVEL as Level) ?? 'info'): Logger {
  const min = ORDER[level] ?? 0;
  const write = (lvl: Level) => (message: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    process.stderr.write(`${JSON.stringify({ level: lvl, time: new Date().toISOString(), msg: message, ...fields })}\n`);
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}
