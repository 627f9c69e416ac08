/**
 * The model list in the Messages API's format, for Anthropic's SDK and coding agents (a request
 * carrying `anthropic-version`): `{data: [{type, id, display_name, created_at}], has_more,
 * first_id, last_id}`, paged by `limit` (default 20, at most 1000), `after_id` and `before_id`.
 */
import type { Snapshot } from '../../config/snapshot.ts';
import { invalidValue } from '../../kernel/errors.ts';

interface Listed {
  id: string;
  created: number;
}

export interface AnthropicModel {
  type: 'model';
  id: string;
  display_name: string;
  created_at: string;
}

/** Does this request speak the Messages API's dialect? */
export const wantsAnthropicShape = (request: Request) => request.headers.has('anthropic-version');

export function anthropicModel(snapshot: Snapshot, entry: Listed): AnthropicModel {
  return {
    type: 'model',
    id: entry.id,
    display_name: snapshot.models.get(entry.id)?.name ?? entry.id,
    created_at: new Date(entry.created * 1000).toISOString(),
  };
}

function limitOf(query: URLSearchParams): number {
  const raw = query.get('limit');
  if (raw === null) return 20;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw invalidValue('limit must be an integer from 1 to 1000.', 'limit');
  return limit;
}

/** One page of `entries` (in list order) as the Messages API answers it. */
export function anthropicPage(snapshot: Snapshot, entries: Listed[], query: URLSearchParams) {
  const limit = limitOf(query);
  const after = query.get('after_id');
  const before = query.get('before_id');
  let start = 0;
  let end = entries.length;
  if (after !== null) start = entries.findIndex((e) => e.id === after) + 1;
  if (before !== null) {
    end = Math.max(0, entries.findIndex((e) => e.id === before));
    start = Math.max(start, end - limit);
  }
  const page = entries.slice(start, Math.min(end, start + limit)).map((entry) => anthropicModel(snapshot, entry));
  const hasMore = before !== null ? start > 0 : start + page.length < end;
  return { data: page, has_more: hasMore, first_id: page[0]?.id ?? null, last_id: page.at(-1)?.id ?? null };
}
