/**
 * Start a gateway process: one server, or with `server.workers` > 1 a primary that forks
 * workers sharing one port (node:cluster). Several workers need REDIS_URL so that limits,
 * quotas and counters stay exact across them.
 */
import type { Cluster } from 'node:cluster';
import { resolve } from 'node:path';
import { serve, type Server } from 'srvx';
import { loadConfigFile } from './config/load.ts';
import { formatProblem } from './config/problems.ts';
import { ConfigError, createGateway, type Gateway } from './gateway.ts';
import type { Logger } from './pipeline/types.ts';
import { createServerApp } from './server.ts';
import { installFeatures } from './features.ts';
import { initTracing } from './tracing.ts';

export interface StartOptions {
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  /** Pass node:cluster to allow forking workers (main.ts); tests run single-process. */
  cluster?: Cluster;
  watch?: boolean;
}

export interface Started {
  gateway: Gateway;
  server: Server;
  url: string;
}

export async function startGateway(options: StartOptions): Promise<Started | null> {
  const env = options.env ?? process.env;
  const configFile = resolve(env.GATEWAY_CONFIG ?? 'gateway.yaml');
  const { cluster, logger } = options;
  if (cluster?.isPrimary) {
    const loaded = await loadConfigFile(configFile, env);
    if (!loaded.ok) throw new ConfigError(loaded.problems.map(formatProblem));
    const workers = loaded.config.server.workers;
    if (workers > 1) {
      if (!env.REDIS_URL) throw new Error(`server.workers is ${workers}: several workers need REDIS_URL to share limits and counters`);
      forkWorkers(cluster, workers, logger);
      return null;
    }
  }
  // GATEWAY_WATCH=false leaves reloads to SIGHUP (or the management API) only.
  const watch = options.watch ?? env.GATEWAY_WATCH !== 'false';
  const gateway = await createGateway({ configFile, env, logger, watch });
  try {
    await initTracing(logger, gateway.runtime.version, env);
    const features = await installFeatures(gateway, logger);
    const app = createServerApp(gateway, logger, features);
    const { server: serverConfig } = gateway.current.snapshot.config;
    const server = serve({
      fetch: app.fetch,
      port: Number(env.PORT ?? serverConfig.port),
      hostname: env.HOST ?? serverConfig.host,
      silent: true,
      gracefulShutdown: false,
      // Cluster workers share the primary's listening socket: srvx binds exclusively unless told.
      reusePort: cluster?.isWorker === true,
    });
    await server.ready();
    const url = server.url!.replace(/\/$/, '');
    logger.info('gateway listening', { url, config: configFile, store: gateway.runtime.store.kind });
    return { gateway, server, url };
  } catch (error) {
    await gateway.close();
    throw error;
  }
}

function forkWorkers(cluster: Cluster, count: number, logger: Logger) {
  let stopping = false;
  for (let i = 0; i < count; i++) cluster.fork();
  cluster.on('exit', (worker, code) => {
    if (stopping) return;
    logger.warn('worker exited; starting another', { pid: worker.process.pid, code });
    cluster.fork();
  });
  const stop = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // Reload every worker's config on SIGHUP to the primary.
  process.on('SIGHUP', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGHUP');
  });
}
