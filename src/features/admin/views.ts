/**
 * The API shapes of the managed resources (spec 2.1-2.4, CONTRACT Identity). Secrets are masked:
 * never read back whole.
 */
import type { AccountConfig, GroupConfig, KeyConfig, ModelConfig, ProviderConfig } from '../../config/types.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { accountTimeZone } from '../../auth/account-policy.ts';
import { groupBudget, keyBudget, providerBudget, type Budget } from '../../quota/budgets.ts';
import { quotaView } from '../../quota/counter.ts';
import type { QuotaPeriod } from '../../quota/period.ts';
import { keyUsageKeys } from '../../quota/persist-counters.ts';

/** `sk-bf-abc…wxyz` -> `sk-bf-…wxyz`; short values are fully hidden. */
export function maskSecret(value: string | undefined | null): string | null {
  if (!value) return null;
  if (value.length < 12) return '…';
  const prefix = /^(sk-bf-|sk-ant-|sk-)/.exec(value)?.[1] ?? '';
  return `${prefix}…${value.slice(-4)}`;
}

/** Masked display of an API key from its stored hint (the last 4 characters). */
export const maskedKey = (key: KeyConfig) => `sk-bf-…${key.hint ?? '****'}`;

/** `quota_used`, `quota_period` and `quota_resets_at` of a budget, now. */
async function budgetView(budget: Budget, period: QuotaPeriod | undefined, runtime: Runtime) {
  const [used] = await runtime.store.getCounters([budget.counter.key]);
  return quotaView(budget.counter, period, used ?? 0);
}

export async function providerView(p: ProviderConfig, runtime: Runtime) {
  const quota = await budgetView(providerBudget(p, runtime.current(), Date.now()), p.quota_period, runtime);
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
    ...quota,
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
  const quota = await budgetView(groupBudget(g, runtime.current(), Date.now()), g.quota_period, runtime);
  return {
    id: g.id,
    object: 'group',
    name: g.name,
    description: g.description,
    priority: g.priority,
    quota_limit: g.quota_limit,
    ...quota,
    models: g.models,
    features: g.features,
    created_at: g.created_at ?? null,
  };
}

export function userView(a: AccountConfig) {
  return { id: a.id, object: 'user', email: a.email, name: a.name, role: a.role, group: a.group ?? null, created_at: a.created_at ?? null };
}

export async function keyView(k: KeyConfig, runtime: Runtime, fullKey?: string) {
  const budget = keyBudget(k, await accountTimeZone(runtime, k.account), Date.now());
  const [requests, tokens, used] = await runtime.store.getCounters([...keyUsageKeys(k.id), budget.counter.key]);
  const { quota_limit, quota_period } = k.permissions;
  return {
    id: k.id,
    object: 'api_key',
    name: k.name,
    key: fullKey ?? maskedKey(k),
    status: k.status,
    permissions: { models: k.permissions.models, rate_limit: k.permissions.rate_limit, quota_limit, ...(quota_period ? { quota_period } : {}) },
    usage: { total_requests: requests ?? 0, total_tokens: tokens ?? 0 },
    ...quotaView(budget.counter, quota_period, used ?? 0),
    account_id: k.account,
    created_at: k.created_at ?? null,
  };
}
