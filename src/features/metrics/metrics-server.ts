/**
 * The separate metrics port (`metrics.port` / GATEWAY_METRICS_PORT): a listener that answers
 * `GET /metrics` (and HEAD) and 404 for everything else, so the API port can stay open to clients
 * while a NetworkPolicy opens this one to the monitoring namespace alone. Its errors are in the
 * OpenAI shape, like the API port's.
 */
import cluster from 'node:cluster';
import { serve } from 'srvx';
import { renderError } from '../../http/handle.ts';
import { routeNotFound } from '../../kernel/errors.ts';
import type { Logger } from '../../kernel/logger.ts';

export interface MetricsServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Listens on `port` (`hostname`, as the API port does) and hands `GET /metrics` to `scrape`. */
export async function startMetricsServer(port: number, hostname: string | undefined, scrape: (request: Request) => Promise<Response>, logger: Logger): Promise<MetricsServer> {
  const server = serve({
    port,
    hostname,
    silent: true,
    gracefulShutdown: false,
    // Cluster workers share the primary's socket, as on the API port.
    reusePort: cluster.isWorker,
    async fetch(request) {
      try {
        const { pathname } = new URL(request.url);
        if ((request.method !== 'GET' && request.method !== 'HEAD') || pathname !== '/metrics') throw routeNotFound(request.method, pathname);
        return await scrape(request);
      } catch (error) {
        return renderError(error, logger);
      }
    },
  });
  await server.ready();
  const url = server.url!.replace(/\/$/, '');
  logger.info('metrics listening', { url: `${url}/metrics` });
  return { url, close: () => server.close(true) };
}
