/**
 * Settings read once at startup (listen address, workers, public base URL, OAuth clients, log
 * queue sizes): a reload cannot apply them, so a change is reported as needing a restart
 * instead of being silently ignored.
 */
import { isDeepStrictEqual } from 'node:util';
import type { GatewayConfig } from './types.ts';

const RESTART_ONLY: Array<[string, (config: GatewayConfig) => unknown]> = [
  ['server.host', (c) => c.server.host],
  ['server.port', (c) => c.server.port],
  ['server.workers', (c) => c.server.workers],
  ['server.base_url', (c) => c.server.base_url],
  ['oauth.clients', (c) => c.oauth.clients],
  ['logs.batch_size', (c) => c.logs.batch_size],
  ['logs.flush_interval_ms', (c) => c.logs.flush_interval_ms],
  ['logs.queue_max', (c) => c.logs.queue_max],
  ['smtp', (c) => c.smtp],
  ['metrics.port', (c) => c.metrics.port],
];

/** The restart-only settings that differ between the running and the reloaded config. */
export function restartOnlyChanges(running: GatewayConfig, next: GatewayConfig): string[] {
  return RESTART_ONLY.filter(([, read]) => !isDeepStrictEqual(read(running), read(next))).map(([path]) => path);
}
