/**
 * Entry point: load gateway.yaml, serve it, reload on SIGHUP, drain on SIGTERM (for at most
 * GATEWAY_DRAIN_TIMEOUT_MS, then the requests left are ended: see src/boot/gateway.ts).
 * `server.workers` > 1 forks that many workers on one port (src/boot/workers.ts).
 */
import cluster from 'node:cluster';
import { drainTimeoutFrom } from './boot/gateway.ts';
import { forkWorkers } from './boot/workers.ts';
import { createLogger } from './kernel/logger.ts';
import { shutdownTracing } from './pipeline/tracing.ts';
import { startGateway } from './server.ts';

const logger = createLogger();

try {
  const drainTimeoutMs = drainTimeoutFrom(process.env);
  if (!(await forkWorkers(cluster, process.env, logger))) {
    // A stop during the start (a slow log database, a rollout replaced at once) must not wait
    // for it: nothing is served yet, so nothing needs draining. Node as PID 1 in a container
    // would otherwise ignore the signal until the orchestrator's SIGKILL.
    const stopWhileStarting = (signal: NodeJS.Signals) => {
      logger.info('stopped before serving', { signal });
      process.exit(0);
    };
    process.once('SIGTERM', stopWhileStarting);
    process.once('SIGINT', stopWhileStarting);
    const { gateway, server } = await startGateway({ logger });
    process.off('SIGTERM', stopWhileStarting);
    process.off('SIGINT', stopWhileStarting);
    process.on('SIGHUP', () => void gateway.config.reload());
    const stop = async () => {
      logger.info('shutting down', { drain_timeout_ms: drainTimeoutMs });
      await gateway.close({
        drainTimeoutMs,
        stopListening: () => server.close(),
        cutConnections: () => {
          const http = server.node?.server;
          if (http && 'closeAllConnections' in http) http.closeAllConnections();
        },
      });
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
