/**
 * Model resolution (CONTRACT: Routing): an exact model-config id first, else
 * `provider_id/upstream_model` split at the first `/`. Inactive models or providers are not
 * routable. A model with several deployments yields them in weighted random order.
 */
import type { ModelConfig, ProviderConfig } from '../config/types.ts';
import type { Target } from '../providers/types.ts';
import type { Snapshot } from '../config/snapshot.ts';

interface Candidate {
  provider: ProviderConfig;
  upstreamModel: string;
  weight: number;
}

/** Targets for one identifier as the client wrote it; empty when it is unknown or not routable. */
export function resolveModel(snapshot: Snapshot, requestedAs: string, random = Math.random): Target[] {
  const model = snapshot.models.get(requestedAs);
  if (model) return model.status === 'active' ? fromModel(snapshot, model, requestedAs, random) : [];
  const slash = requestedAs.indexOf('/');
  if (slash <= 0) return [];
  const provider = snapshot.providers.get(requestedAs.slice(0, slash));
  const upstreamModel = requestedAs.slice(slash + 1);
  if (!provider || provider.status !== 'active' || !upstreamModel) return [];
  const configured = findModelFor(snapshot, provider.id, upstreamModel);
  if (configured?.status === 'inactive') return [];
  if (!configured && !provider.models.includes(upstreamModel)) return [];
  return [{ provider: configured ? withModelEndpoint(provider, configured) : provider, model: configured, upstreamModel, requestedAs }];
}

/**
 * The model config an identifier names, whatever its status: by id, else the one behind
 * `provider_id/upstream_model`; undefined for a plain provider model or an unknown name.
 */
export function modelConfigFor(snapshot: Snapshot, identifier: string): ModelConfig | undefined {
  const model = snapshot.models.get(identifier);
  if (model) return model;
  const slash = identifier.indexOf('/');
  return slash > 0 ? findModelFor(snapshot, identifier.slice(0, slash), identifier.slice(slash + 1)) : undefined;
}

function findModelFor(snapshot: Snapshot, providerId: string, upstreamModel: string): ModelConfig | undefined {
  for (const model of snapshot.models.values()) {
    if (model.provider === providerId && (model.upstream_model ?? model.id) === upstreamModel) return model;
  }
  return undefined;
}

function fromModel(snapshot: Snapshot, model: ModelConfig, requestedAs: string, random: () => number): Target[] {
  const candidates: Candidate[] = [];
  const add = (providerId: string, upstreamModel: string, weight: number) => {
    const provider = snapshot.providers.get(providerId);
    if (provider && provider.status === 'active' && weight > 0) candidates.push({ provider, upstreamModel, weight });
  };
  add(model.provider, model.upstream_model ?? model.id, model.weight ?? 1);
  if (model.endpoint && candidates[0]) candidates[0].provider = withModelEndpoint(candidates[0].provider, model);
  for (const deployment of model.deployments ?? []) {
    add(deployment.provider, deployment.upstream_model ?? model.upstream_model ?? model.id, deployment.weight ?? 1);
  }
  return weightedOrder(candidates, random).map((c) => ({ provider: c.provider, model, upstreamModel: c.upstreamModel, requestedAs }));
}

/** A model's own `endpoint` overrides its provider's base URL (same credentials and headers). */
function withModelEndpoint(provider: ProviderConfig, model: ModelConfig): ProviderConfig {
  return model.endpoint && model.provider === provider.id ? { ...provider, endpoint: model.endpoint } : provider;
}

/** Weighted sampling without replacement: heavier deployments tend to come first. */
export function weightedOrder<T extends { weight: number }>(items: T[], random = Math.random): T[] {
  if (items.length < 2) return items;
  const pool = [...items];
  const ordered: T[] = [];
  while (pool.length) {
    const total = pool.reduce((sum, item) => sum + item.weight, 0);
    let pick = random() * total;
    let index = 0;
    while (index < pool.length - 1 && pick >= pool[index].weight) pick -= pool[index++].weight;
    ordered.push(pool.splice(index, 1)[0]);
  }
  return ordered;
}
