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

/** Query parameters that carry credentials in an upstream URL (`?api_key=`, `?sig=`...). */
const SECRET_PARAM = /key|token|secret|sig|password|auth|credential/i;

/**
 * An upstream URL with what credentials it carries masked: the user info (`user:pass@host`) and
 * secret-looking query values. Anything that does not parse as a URL is shown as it is.
 */
export function maskEndpoint(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return endpoint;
  }
  const secretParams = [...url.searchParams.keys()].filter((name) => SECRET_PARAM.test(name));
  if (!url.username && !url.password && !secretParams.length) return endpoint;
  if (url.password) url.password = '…';
  else if (url.username) url.username = '…';
  for (const name of secretParams) url.searchParams.set(name, '…');
  return url.toString();
}

/** Masked display of an API key from its stored hint (the last 4 characters). */
export const maskedKey = (key: KeyConfig) => `sk-bf-…${key.hint ?? '****'}`;

/** `quota_used`, `quota_period` and `quota_resets_at` of a budget, now. */
async function budgetView(budget: Budget, period: QuotaPeriod | undefined, runtime: Runtime) {
  const [used] = await runtime.store.getCounters([budget.counter.key]);
  return quotaView(budget.counter, period, used ?? 0);
}

/**
 * Header values may carry credentials (`Authorization`), so each is masked like `api_key`; the
 * names show what is set.
 */
function maskedHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, maskSecret(value) ?? '']));
}

/**
 * A provider with every field it has: the spec's fields always (`created_at` null when unset),
 * the optional ones (`timeouts`, `headers`, `api_version`, `path`, `adapter`, ...) when set.
 */
export async function providerView(p: ProviderConfig, runtime: Runtime) {
  const quota = await budgetView(providerBudget(p, runtime.current(), Date.now()), p.quota_period, runtime);
  const { id, name, type, status, endpoint, api_key, models, quota_limit, quota_period: _period, headers, created_at, ...optional } = p;
  return {
    id,
    object: 'provider',
    name,
    type,
    status,
    endpoint: maskEndpoint(endpoint),
    api_key: maskSecret(api_key),
    models,
    quota_limit,
    ...quota,
    ...optional,
    ...(headers ? { headers: maskedHeaders(headers) } : {}),
    created_at: created_at ?? null,
  };
}

/**
 * A model with every field it has: the spec's fields always (`created_at` null when unset), the
 * optional ones (`upstream_model`, `endpoint`, `timeouts`, `deployments`, `weight`, ...) when set.
 */
export function modelView(m: ModelConfig) {
  const { id, name, provider, context_length, input_price, output_price, capabilities, status, created_at, ...optional } = m;
  return {
    id,
    object: 'model',
    name,
    provider,
    context_length,
    input_price,
    output_price,
    capabilities,
    status,
    ...optional,
    ...(optional.endpoint ? { endpoint: maskEndpoint(optional.endpoint) } : {}),
    created_at: created_at ?? null,
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
  const { quota_limit, quota_period, expires_at } = k.permissions;
  return {
    id: k.id,
    object: 'api_key',
    name: k.name,
    key: fullKey ?? maskedKey(k),
    status: k.status,
    permissions: { models: k.permissions.models, rate_limit: k.permissions.rate_limit, quota_limit, ...(quota_period ? { quota_period } : {}), ...(expires_at ? { expires_at } : {}) },
    // The scopes the key is held to (those of the OAuth token that created it); null: not scope-limited.
    scopes: k.scopes ?? null,
    usage: { total_requests: requests ?? 0, total_tokens: tokens ?? 0 },
    ...quotaView(budget.counter, quota_period, used ?? 0),
    account_id: k.account,
    created_at: k.created_at ?? null,
  };
}
