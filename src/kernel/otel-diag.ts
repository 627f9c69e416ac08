/**
 * The OpenTelemetry SDK's own messages (a failed export, a setting it cannot use) as the gateway's
 * JSON log lines, each distinct message at most once a minute: a collector that is down fails
 * every batch, and must not flood the log; the next line says how many were left out.
 */
import type { DiagLogger } from '@opentelemetry/api';
import type { Logger } from './logger.ts';

export const DIAG_REPEAT_INTERVAL_MS = 60_000;
/** Distinct messages remembered: the SDK's are few; a flood of different ones starts over. */
const MAX_REMEMBERED = 100;
const MAX_DETAIL_CHARS = 500;

export function createDiagLogger(logger: Logger, intervalMs = DIAG_REPEAT_INTERVAL_MS, now = Date.now): DiagLogger {
  const seen = new Map<string, { at: number; left: number }>();
  const write = (level: 'warn' | 'info') => (message: string, ...args: unknown[]) => {
    const detail = describe(message, args);
    const at = now();
    const last = seen.get(detail);
    if (last && at - last.at < intervalMs) {
      last.left++;
      return;
    }
    if (!last && seen.size >= MAX_REMEMBERED) seen.clear();
    seen.set(detail, { at, left: 0 });
    logger[level]('opentelemetry sdk', { detail, ...(last?.left ? { repeated: last.left } : {}) });
  };
  // The SDK's errors are the tracing's, never the gateway's: a warning each.
  return { error: write('warn'), warn: write('warn'), info: write('info'), debug: write('info'), verbose: write('info') };
}

/** One line out of the SDK's message and arguments. */
function describe(message: string, args: unknown[]): string {
  return [message, ...args].map(readable).filter(Boolean).join(' ').slice(0, MAX_DETAIL_CHARS);
}

function readable(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === 'string') {
    // The SDK's global error handler passes the whole exception as JSON, stack included.
    if (value.startsWith('{')) {
      try {
        const parsed = JSON.parse(value) as { message?: unknown };
        if (typeof parsed.message === 'string') return parsed.message;
      } catch {
        // not JSON after all: as it is
      }
    }
    return value;
  }
  if (value === undefined || value === null) return '';
  try {
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  } catch {
    return String(value);
  }
}
