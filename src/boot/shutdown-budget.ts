/**
 * The longest a SIGTERM can take, from the gateway's own deadlines: what an orchestrator's grace
 * period (Kubernetes `terminationGracePeriodSeconds` after the preStop hook, compose's
 * `stop_grace_period`) must exceed, or its SIGKILL lands mid-flush and call-log rows are lost.
 * test/e2e/deploy.test.ts checks the shipped manifests against it, with a margin.
 */
import { RETENTION_STOP_TIMEOUT_MS, STORE_CLOSE_TIMEOUT_MS, flushTimeoutFrom } from '../features/logs/service.ts';
import { REDIS_SPILL_CLOSE_MS, REDIS_SPILL_DEADLINE_MS } from '../features/logs/spill-redis.ts';
import { TRACE_FLUSH_TIMEOUT_MS } from '../pipeline/tracing.ts';
import { REDIS_CLOSE_TIMEOUT_MS } from '../store/redis.ts';
import { drainTimeoutFrom, END_GRACE_MS } from './gateway.ts';

/** Each step of a shutdown and its longest duration (ms), in order, for the environment `env`. */
export function shutdownSteps(env: NodeJS.ProcessEnv): Array<[step: string, ms: number]> {
  return [
    ['drain the requests in flight (GATEWAY_DRAIN_TIMEOUT_MS)', drainTimeoutFrom(env)],
    ['end those left, then cut their connections', 2 * END_GRACE_MS],
    ['stop a log retention pass', RETENTION_STOP_TIMEOUT_MS],
    ['flush the call log to a failing store (GATEWAY_FLUSH_TIMEOUT_MS)', flushTimeoutFrom(env)],
    ['spill what is left to Redis, else to a file', REDIS_SPILL_DEADLINE_MS],
    ['close the Redis spill connection', REDIS_SPILL_CLOSE_MS],
    ['close the log store', STORE_CLOSE_TIMEOUT_MS],
    ['close the Redis state store', REDIS_CLOSE_TIMEOUT_MS],
    ['export the buffered spans', TRACE_FLUSH_TIMEOUT_MS],
  ];
}

/** The sum of {@link shutdownSteps}, in milliseconds. */
export const shutdownBudgetMs = (env: NodeJS.ProcessEnv): number => shutdownSteps(env).reduce((sum, [, ms]) => sum + ms, 0);
