import type { GatewayConfig, Timeouts } from '../config/types.ts';
import type { Target } from '../providers/types.ts';

/** Deadlines for one target: gateway defaults, overridden by the provider, then by the model. */
export function timeoutsFor(config: GatewayConfig, target: Target): Timeouts {
  return Object.assign({}, config.timeouts, target.provider.timeouts, target.model?.timeouts);
}
