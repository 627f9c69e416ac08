/**
 * The API shapes of the managed resources (spec 2.1-2.4, CONTRACT Identity). Secrets are masked:
 * never read back whole.
 */
import type { AccountConfig, GroupConfig, KeyConfig, ModelConfig, ProviderConfig } from '../config/types.ts';
import type { Runtime } from '../runtime.ts';
import { groupQuotaKey, keyUsageKeys, providerQuotaKey } from './counters.ts';

/** `sk-bf-abc…wxyz` -> `sk-bf-…wxyz`; short values are fully hidden. */
export function maskSecret(value: string | undefined | null): string | null {
  if (!value) return null;
  if (value.length < 12) return '…';
  const prefix = /^(sk-bf-|sk-ant-|sk-)/.exec(value)?.[1] ?? '';
  return `${prefix}…${value.slice(-4)}`;
}

/** Masked display of an API key from its stored hint (the last 4 characters). */
export const maskedKey = (key: KeyConfig) => `sk-bf-…${key.hint ?? '****'}`;

export async function providerView(p: ProviderConfig, runtime: Runtime) {
  const [used] = await runtime.store.getCounters([providerQuotaKey(p.id)]);
  return {
    id: p.id,
    object: 'provider',
    name: p.name,
    type: p.type,
    status: p.status,
    endpoint: p.endpoint,
    api_key: maskSecret(p.api_key),
    models: p.models,
    quota_limit: p.quota_limit,
    quota_used: used ?? 0,
    ...(p.timeouts ? { timeouts: p.timeouts } : {}),
    created_at: p.created_at ?? null,
  };
}

export function modelView(m: ModelConfig) {
  return {
    id: m.id,
    object: 'model',
    name: m.name,
    provider: m.provider,
    context_length: m.context_length,
    input_price: m.input_price,
    output_price: m.output_price,
    capabilities: m.capabilities,
    status: m.status,
    ...(m.upstream_model ? { upstream_model: m.upstream_model } : {}),
    ...(m.endpoint ? { endpoint: m.endpoint } : {}),
    created_at: m.created_at ?? null,
  };
}

export async function groupView(g: GroupConfig, runtime: Runtime) {
  const [used] = await runtime.store.getCounters([groupQuotaKey(g.id)]);
  return {
    id: g.id,
    object: 'group',
    name: g.name,
    description: g.description,
    priority: g.priority,
    quota_limit: g.quota_limit,
    quota_used: used ?? 0,
    models: g.models,
    features: g.features,
    created_at: g.created_at ?? null,
  };
}

export function userView(a: AccountConfig) {
  return { id: a.id, object: 'user', email: a.email, name: a.name, role: a.role, group: a.group ?? null, created_at: a.created_at ?? null };
}

export async function keyView(k: KeyConfig, runtime: Runtime, fullKey?: string) {
  const [requests, tokens] = await runtime.store.getCounters([...keyUsageKeys(k.id)]);
  return {
    id: k.id,
    object: 'api_key',
    name: k.name,
    key: fullKey ?? maskedKey(k),
    status: k.status,
    permissions: { models: k.permissions.models, rate_limit: k.permissions.rate_limit },
    usage: { total_requests: requests ?? 0, total_tokens: tokens ?? 0 },
    account_id: k.account,
    created_at: k.created_at ?? null,
  };
}
