/**
 * `server.workers` > 1: the primary process forks that many workers sharing one port
 * (node:cluster), serves nothing itself, replaces a worker that exits, and passes SIGHUP (reload)
 * and SIGTERM/SIGINT (stop) on to them. Several workers need REDIS_URL so that limits, quotas and
 * counters stay exact across them. It also answers the workers' `/metrics` scrapes with the
 * whole group's metrics (src/features/metrics/cluster.ts).
 */
import type { Cluster } from 'node:cluster';
import { resolve } from 'node:path';
import { loadConfigFile } from '../config/load.ts';
import { ConfigError } from '../config/holder.ts';
import { formatProblem } from '../config/problems.ts';
import { GROUP_ENV, serveGroupMetrics } from '../features/metrics/cluster.ts';
import type { Logger } from '../kernel/logger.ts';

/** True when this process became the primary of forked workers (it must not serve then). */
export async function forkWorkers(cluster: Cluster, env: NodeJS.ProcessEnv, logger: Logger): Promise<boolean> {
  if (!cluster.isPrimary) return false;
  const loaded = await loadConfigFile(resolve(env.GATEWAY_CONFIG ?? 'gateway.yaml'), env);
  if (!loaded.ok) throw new ConfigError(loaded.problems.map(formatProblem));
  const count = loaded.config.server.workers;
  if (count <= 1) return false;
  if (!env.REDIS_URL) throw new Error(`server.workers is ${count}: several workers need REDIS_URL to share limits and counters`);
  let stopping = false;
  serveGroupMetrics(cluster);
  const fork = () => cluster.fork({ [GROUP_ENV]: '1' });
  for (let i = 0; i < count; i++) fork();
  cluster.on('exit', (worker, code) => {
    if (stopping) return;
    logger.warn('worker exited; starting another', { pid: worker.process.pid, code });
    fork();
  });
  const stop = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.on('SIGHUP', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGHUP');
  });
  return true;
}
