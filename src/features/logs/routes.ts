/**
 * Call logs (spec 4.5): the list with every filter, newest first, paged, and the detail record.
 * `/v1/admin/logs` is admin-only like the rest of `/v1/admin` (CONTRACT) and sees every account;
 * `/v1/logs` answers the same for the caller's own account only (read:api for OAuth tokens). Defaults: page 1, page_size 20; a
 * page_size above 100, a page below 1 or a time that is not ISO 8601 is 400 naming the parameter.
 */
import type { LogStore } from './types.ts';
import { LOG_ENDPOINTS, type LogEndpoint, type LogFilter } from './types.ts';
import { invalidValue, notFound } from '../../kernel/errors.ts';
import { defineRoutes } from '../../http/route.ts';
import { isValidDate } from '../../kernel/time.ts';
import { storableText } from './storable.ts';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function integer(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw invalidValue(`${name} must be an integer.`, name);
  const value = Number(raw);
  if (value < min) throw invalidValue(`${name} must be at least ${min}.`, name);
  if (value > max) throw invalidValue(`${name} must be at most ${max}.`, name);
  return value;
}

/**
 * Times are UTC (spec 2): one without an offset is read as UTC, not in the server's zone (which
 * Date.parse would use for a date-time, though not for a date alone).
 */
function asUtc(text: string): string {
  const iso = text.replace(' ', 'T');
  return iso.length > 10 && !/(Z|[+-]\d{2}:?\d{2})$/.test(iso) ? `${iso}Z` : iso;
}

function time(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const text = raw.trim();
  // Date.parse rolls a day past the month's end into the next month (2026-02-30 is March 2nd).
  const ms = ISO_8601.test(text) && isValidDate(text.slice(0, 10)) ? Date.parse(asUtc(text)) : Number.NaN;
  if (Number.isNaN(ms)) throw invalidValue(`${name} must be an ISO 8601 time from 1970 to 2999, e.g. 2025-01-31T12:00:00Z.`, name);
  return ms;
}

/** Parses the list query (spec 4.5) into a filter and a page. */
export function parseLogQuery(query: URLSearchParams): { filter: LogFilter; page: number; pageSize: number } {
  const filter: LogFilter = {};
  filter.start_time = time(query, 'start_time');
  filter.end_time = time(query, 'end_time');
  if (filter.start_time !== undefined && filter.end_time !== undefined && filter.start_time > filter.end_time) {
    throw invalidValue('start_time must not be after end_time.', 'start_time');
  }
  const status = query.get('status');
  if (status) {
    if (status !== 'success' && status !== 'error') throw invalidValue("status must be 'success' or 'error'.", 'status');
    filter.status = status;
  }
  if (query.get('api_key_id')) filter.api_key_id = query.get('api_key_id')!;
  if (query.get('model')) filter.model = query.get('model')!;
  // Additive filters (not in spec 4.5); on /v1/logs the caller's own account overrides account_id.
  if (query.get('account_id')) filter.account_id = query.get('account_id')!;
  if (query.get('provider')) filter.provider = query.get('provider')!;
  if (query.get('error_code')) filter.error_code = query.get('error_code')!;
  const endpoint = query.get('endpoint');
  if (endpoint) {
    if (!LOG_ENDPOINTS.has(endpoint)) throw invalidValue(`endpoint must be one of ${[...LOG_ENDPOINTS].join(', ')}.`, 'endpoint');
    filter.endpoint = endpoint as LogEndpoint;
  }
  const page = integer(query, 'page', 1, 1, Number.MAX_SAFE_INTEGER);
  const pageSize = integer(query, 'page_size', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
  return { filter, page, pageSize };
}

/** The list answer for `filter` (plus `scope`, which the caller cannot widen). */
async function listLogs(store: LogStore, query: URLSearchParams, scope: LogFilter = {}) {
  const { filter, page, pageSize } = parseLogQuery(query);
  const { items, total } = await store.list({ ...filter, ...scope }, page, pageSize);
  return {
    object: 'list',
    data: items,
    meta: { total, page, page_size: pageSize, total_pages: Math.ceil(total / pageSize) },
  };
}

/** The detail record, or 404 when it does not exist or belongs to another account than `accountId`. */
async function logDetail(store: LogStore, id: string, accountId?: string) {
  const detail = await store.get(id);
  if (!detail || (accountId !== undefined && detail.account_id !== storableText(accountId))) throw notFound(`No log with id '${id}'.`, 'log_not_found');
  return detail;
}

export const logRoutes = (store: LogStore) =>
  defineRoutes([
  { method: 'GET', path: '/v1/admin/logs', access: 'admin', handler: ({ query }) => listLogs(store, query) },
  { method: 'GET', path: '/v1/admin/logs/:id', access: 'admin', handler: ({ params }) => logDetail(store, params.id!) },
  // The caller's own account's calls, for members (and their console): same filters and shapes.
  {
    method: 'GET',
    path: '/v1/logs',
    access: 'key',
    handler: ({ query, principal }) => listLogs(store, query, { account_id: principal.accountId }),
  },
  {
    method: 'GET',
    path: '/v1/logs/:id',
    access: 'key',
    handler: ({ params, principal }) => logDetail(store, params.id!, principal.accountId),
  },
]);
