/**
 * Entry point: load gateway.yaml, serve it, reload on SIGHUP, drain on SIGTERM.
 * `server.workers` > 1 forks that many workers on one port (node:cluster).
 */
import cluster from 'node:cluster';
import { startGateway } from './start.ts';
import { createLogger } from './logger.ts';
import { shutdownTracing } from './tracing.ts';

const logger = createLogger();

try {
  const started = await startGateway({ logger, cluster });
  if (started) {
    const { gateway, server } = started;
    process.on('SIGHUP', () => void gateway.reload());
    const stop = async () => {
      logger.info('shutting down');
      await server.close();
      await gateway.close();
      await shutdownTracing(); // the spans still buffered
      process.exit(0);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  }
} catch (error) {
  logger.error((error as Error).message);
  process.exit(1);
}
