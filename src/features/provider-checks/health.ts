/**
 * `GET /v1/admin/providers/{id}/health`: the provider's circuit breakers (one per upstream model it
 * serves, routing/breaker.ts), read without touching them, and its latest failed calls from the log.
 */
import type { ProviderConfig } from '../../config/types.ts';
import { notFound } from '../../kernel/errors.ts';
import { deploymentOf } from '../../routing/breaker.ts';
import { parseCircuit } from '../../store/circuit.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { LogStore } from '../logs/types.ts';

/** How many recent failed calls the answer lists. */
export const RECENT_ERRORS = 5;

export interface DeploymentHealth {
  model: string;
  /** `half_open`: the open period is over and the next call is a probe. */
  state: 'closed' | 'open' | 'half_open';
  /** Consecutive failures counted. */
  failures: number;
  /** While open: ms until a probe may go. */
  retry_in_ms: number;
}

export interface ProviderHealth {
  object: 'provider_health';
  provider: string;
  /** `unhealthy` when every circuit is open, `degraded` when some are open or counting failures. */
  status: 'healthy' | 'degraded' | 'unhealthy';
  deployments: DeploymentHealth[];
  recent_errors: Array<{ id: string; created_at: string; model: string; error_code: string | null; latency: number }>;
}

/** The upstream models a provider serves: its own list and those configured models route to it. */
function upstreamModels(runtime: Runtime, provider: ProviderConfig): string[] {
  const models = new Set(provider.models);
  for (const model of runtime.current().config.models) {
    if (model.provider === provider.id) models.add(model.upstream_model ?? model.id);
    for (const deployment of model.deployments ?? []) {
      if (deployment.provider === provider.id) models.add(deployment.upstream_model ?? model.upstream_model ?? model.id);
    }
  }
  return [...models];
}

export async function providerHealth(runtime: Runtime, logs: LogStore | undefined, id: string, now = Date.now()): Promise<ProviderHealth> {
  const provider = runtime.current().providers.get(id);
  if (!provider) throw notFound(`No provider with id '${id}'.`);
  const deployments = await Promise.all(
    upstreamModels(runtime, provider).map(async (model): Promise<DeploymentHealth> => {
      const circuit = parseCircuit(await runtime.store.get(`gw:breaker:${deploymentOf(provider.id, model)}`));
      const state = circuit.openUntil === 0 ? 'closed' : now < circuit.openUntil && !circuit.probing ? 'open' : 'half_open';
      return { model, state, failures: circuit.failures, retry_in_ms: state === 'open' ? circuit.openUntil - now : 0 };
    }),
  );
  const errors = logs ? (await logs.list({ provider: provider.id, status: 'error' }, 1, RECENT_ERRORS)).items : [];
  const open = deployments.filter((d) => d.state !== 'closed').length;
  const status = deployments.length > 0 && open === deployments.length ? 'unhealthy' : open > 0 || deployments.some((d) => d.failures > 0) ? 'degraded' : 'healthy';
  return {
    object: 'provider_health',
    provider: provider.id,
    status,
    deployments,
    recent_errors: errors.map((e) => ({ id: e.id, created_at: e.created_at, model: e.model, error_code: e.error_code, latency: e.latency })),
  };
}
