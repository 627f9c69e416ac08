import type { GatewayConfig } from '../config/types.ts';
import type { Target } from '../providers/types.ts';
import type { DeploymentLatency } from './latency.ts';

/**
 * When to start another target if this one's first token has not come (ms), or null: hedging
 * off (globally, or `hedge: false` on the model). Learned per deployment once it has
 * `routing.min_samples` samples of this kind (`multiple` × its recent p95, never before
 * `min_ms`), the configured `after_ms` before that.
 */
export function hedgePointMs(config: GatewayConfig, target: Target, stats: DeploymentLatency | undefined, stream: boolean): number | null {
  const { hedge, min_samples } = config.routing;
  if (!hedge.enabled || target.model?.hedge === false) return null;
  const ring = stats?.ring(stream);
  if (!ring || ring.size < min_samples) return hedge.after_ms;
  return Math.max(hedge.min_ms, Math.ceil(hedge.multiple * ring.percentile(95)));
}
