/**
 * The token budgets a call counts against, each with the counter of its current period: the
 * caller's group, the routed provider and the caller's API key. Group and provider periods follow
 * the gateway's time zone (`settings.account.timezone`, the default of every account), a key's
 * period its own account's.
 */
import type { GroupConfig, KeyConfig, ProviderConfig } from '../config/types.ts';
import type { Snapshot } from '../config/snapshot.ts';
import { quotaCounter, type QuotaCounter, type QuotaOwner } from './counter.ts';

export interface Budget {
  owner: QuotaOwner;
  id: string;
  /** Tokens; 0 = unlimited (still counted). */
  limit: number;
  counter: QuotaCounter;
}

export const gatewayTimeZone = (snapshot: Snapshot) => snapshot.config.settings.account.timezone;

export const groupBudget = (group: GroupConfig, snapshot: Snapshot, now: number): Budget => ({
  owner: 'group',
  id: group.id,
  limit: group.quota_limit,
  counter: quotaCounter('group', group.id, group.quota_period, gatewayTimeZone(snapshot), now),
});

export const providerBudget = (provider: ProviderConfig, snapshot: Snapshot, now: number): Budget => ({
  owner: 'provider',
  id: provider.id,
  limit: provider.quota_limit,
  counter: quotaCounter('provider', provider.id, provider.quota_period, gatewayTimeZone(snapshot), now),
});

/** `tz`: the time zone of the key's account. */
export const keyBudget = (key: KeyConfig, tz: string, now: number): Budget => ({
  owner: 'key',
  id: key.id,
  limit: key.permissions.quota_limit,
  counter: quotaCounter('key', key.id, key.permissions.quota_period, tz, now),
});

/** How a refusal names the budget to the caller. */
export function describeBudget(budget: Budget): string {
  if (budget.owner === 'group') return 'your group';
  if (budget.owner === 'key') return 'this API key';
  return `provider '${budget.id}'`;
}
