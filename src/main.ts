/**
 * Entry point: load gateway.yaml, serve it, reload on SIGHUP, drain on SIGTERM.
 * `server.workers` > 1 forks that many workers on one port (src/boot/workers.ts).
 */
import cluster from 'node:cluster';
import { forkWorkers } from './boot/workers.ts';
import { createLogger } from './kernel/logger.ts';
import { shutdownTracing } from './kernel/tracing.ts';
import { startGateway } from './server.ts';

const logger = createLogger();

try {
  if (!(await forkWorkers(cluster, process.env, logger))) {
    const { gateway, server } = await startGateway({ logger });
    process.on('SIGHUP', () => void gateway.config.reload());
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
