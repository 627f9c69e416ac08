/**
 * Optional feature modules installed at start (logs, statistics, management, OAuth...). Each
 * contributes routes and services; this is the one place that wires them together.
 */
import type { Gateway } from './gateway.ts';
import type { Logger } from './pipeline/types.ts';
import type { ServerOptions } from './server.ts';

export async function installFeatures(_gateway: Gateway, _logger: Logger): Promise<ServerOptions> {
  return { routes: [], inference: [] };
}
