import type { GatewayConfig, Timeouts } from '../config/types.ts';
import type { Target } from '../providers/types.ts';
import type { DeploymentLatency } from './latency.ts';

/**
 * Deadlines for one target: gateway defaults, overridden by the provider, then by the model.
 * With the deployment's latency (`learned`: streamed calls), once it has `routing.min_samples`
 * samples of this kind, the first-token deadline follows it: `multiple` × its recent p99, never shorter than
 * `min_ms` nor longer than the configured `first_token`. A silent upstream of a model that
 * answers in one second is then given up in seconds; a model that thinks for a minute keeps it.
 */
export function timeoutsFor(config: GatewayConfig, target: Target, learned?: { stats: DeploymentLatency | undefined; stream: boolean }): Timeouts {
  const timeouts = Object.assign({}, config.timeouts, target.provider.timeouts, target.model?.timeouts);
  const rule = config.routing.learned_deadline;
  if (!learned?.stats || !rule.enabled) return timeouts;
  const ring = learned.stats.ring(learned.stream);
  if (ring.size < config.routing.min_samples) return timeouts;
  const deadline = Math.max(rule.min_ms, Math.ceil(rule.multiple * ring.percentile(99)));
  if (deadline < timeouts.first_token) timeouts.first_token = deadline;
  return timeouts;
}
