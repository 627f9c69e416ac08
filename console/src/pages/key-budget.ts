/** A key's budget on the key form: token quota, the period it starts over, and the expiry. */
import { formatDateTime } from '../format.ts';
import type { ApiKey } from '../types.ts';

export interface Budget {
  quota_limit: string;
  /** '' = never starts over. */
  quota_period: string;
  /** datetime-local (local wall time); '' = never expires. */
  expires_at: string;
}

export const PERIODS: Array<[string, string]> = [
  ['', 'Never'],
  ['daily', 'Every day'],
  ['weekly', 'Every week'],
  ['monthly', 'Every month'],
];

/** An ISO time as a datetime-local value in this browser's zone. */
function localOf(iso: string | undefined): string {
  const date = new Date(iso ?? '');
  if (!iso || Number.isNaN(date.getTime())) return '';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
}

export function initialBudget(key?: ApiKey): Budget {
  return {
    quota_limit: String(key?.permissions.quota_limit ?? 0),
    quota_period: key?.permissions.quota_period ?? '',
    expires_at: localOf(key?.permissions.expires_at),
  };
}

/**
 * The permissions fields for the API. On an edit, a cleared period or expiry is sent as null (the
 * API's "back to the default"); on a create it is left out. Text that is not a number is sent as
 * is, so that the API names the field.
 */
export function budgetBody(budget: Budget, editing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const quota = budget.quota_limit.trim();
  body.quota_limit = quota === '' ? 0 : Number.isNaN(Number(quota)) ? quota : Number(quota);
  if (budget.quota_period) body.quota_period = budget.quota_period;
  else if (editing) body.quota_period = null;
  if (budget.expires_at) {
    const date = new Date(budget.expires_at);
    body.expires_at = Number.isNaN(date.getTime()) ? budget.expires_at : date.toISOString();
  } else if (editing) body.expires_at = null;
  return body;
}

export function expiresText(iso: string | undefined): string {
  if (!iso) return 'never';
  return Date.parse(iso) <= Date.now() ? `expired ${formatDateTime(iso)}` : formatDateTime(iso);
}
