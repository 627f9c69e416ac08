/**
 * The log list's filters and page in the query string (`/console/logs?status=error&page=2`), so that
 * Back from a log entry, a reload and a shared link show the same list. Times are kept there as
 * ISO 8601 in UTC, so that a link means the same calls in any time zone; the form shows them as
 * local wall time (datetime-local).
 */
import { withQuery } from '../api.ts';

export interface Filters {
  /** datetime-local values: local wall time, as the inputs hold them. */
  start_time: string;
  end_time: string;
  api_key_id: string;
  model: string;
  status: string;
  account_id: string;
  provider: string;
  error_code: string;
  endpoint: string;
  page_size: string;
}

export const EMPTY: Filters = {
  start_time: '', end_time: '', api_key_id: '', model: '', status: '', account_id: '', provider: '', error_code: '', endpoint: '', page_size: '20',
};

/** The inference interfaces a call can come in through (the logs API's `endpoint` filter). */
export const ENDPOINTS: Array<[string, string]> = [
  ['chat', 'Chat completions'],
  ['responses', 'Responses'],
  ['embeddings', 'Embeddings'],
  ['messages', 'Messages (Anthropic)'],
  ['generate_content', 'generateContent (Google)'],
];

/** The list API's query for these filters (without the page). */
export function apiQuery(filters: Filters): Record<string, string | undefined> {
  return {
    start_time: isoOf(filters.start_time),
    end_time: isoOf(filters.end_time),
    api_key_id: filters.api_key_id,
    model: filters.model.trim(),
    status: filters.status,
    account_id: filters.account_id,
    provider: filters.provider,
    error_code: filters.error_code.trim(),
    endpoint: filters.endpoint,
  };
}

/** datetime-local gives local wall time; the API wants ISO 8601 with a zone. */
export const isoOf = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** An ISO time as a datetime-local value in this browser's zone ('' when it is not a time). */
function localOf(iso: string | null): string {
  const date = new Date(iso ?? '');
  if (!iso || Number.isNaN(date.getTime())) return '';
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** The filters and page a list URL's query string (`location.search`) names. */
export function fromQuery(search: string): { filters: Filters; page: number } {
  const query = new URLSearchParams(search);
  const text = (name: keyof Filters) => query.get(name) ?? EMPTY[name];
  const page = Number(query.get('page'));
  return {
    filters: {
      start_time: localOf(query.get('start_time')),
      end_time: localOf(query.get('end_time')),
      api_key_id: text('api_key_id'),
      model: text('model'),
      status: text('status'),
      account_id: text('account_id'),
      provider: text('provider'),
      error_code: text('error_code'),
      endpoint: text('endpoint'),
      page_size: text('page_size'),
    },
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
}

/** The list's URL for these filters and page; defaults are left out. */
export function listUrl(filters: Filters, page: number): string {
  return withQuery('/console/logs', {
    ...apiQuery(filters),
    page_size: filters.page_size === EMPTY.page_size ? undefined : filters.page_size,
    page: page > 1 ? page : undefined,
  });
}
