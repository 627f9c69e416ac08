/**
 * The filtered log list as a CSV file, built in the browser from the list API (pages of 100, at
 * most MAX_EXPORT_ROWS calls, newest first): the same filters as on screen, every page of them.
 */
import { api, type List } from '../api.ts';
import type { LogItem } from '../types.ts';

export const MAX_EXPORT_ROWS = 10_000;

const COLUMNS: Array<[string, (log: LogItem) => unknown]> = [
  ['id', (l) => l.id],
  ['created_at', (l) => l.created_at],
  ['status', (l) => l.status],
  ['error_code', (l) => l.error_code],
  ['endpoint', (l) => l.endpoint],
  ['model', (l) => l.model],
  ['provider', (l) => l.provider],
  ['account_id', (l) => l.account_id],
  ['api_key_id', (l) => l.api_key_id],
  ['api_key_name', (l) => l.api_key_name],
  ['request_tokens', (l) => l.request_tokens],
  ['response_tokens', (l) => l.response_tokens],
  ['latency_ms', (l) => l.latency],
  ['ttft_ms', (l) => l.ttft_ms],
  ['cost', (l) => l.cost?.total],
  ['currency', (l) => l.cost?.currency],
  ['ip', (l) => l.ip],
];

/** A CSV field: quoted when it holds a separator, a quote or a line break; a leading =+-@ is defused for spreadsheets. */
export function csvField(value: unknown): string {
  let text = value == null ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function logsCsv(items: LogItem[]): string {
  const lines = [COLUMNS.map(([name]) => name).join(',')];
  for (const item of items) lines.push(COLUMNS.map(([, get]) => csvField(get(item))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** Every call the filters match (up to the cap), and whether there were more. */
export async function allMatching(path: string, query: Record<string, string | undefined>): Promise<{ items: LogItem[]; more: boolean }> {
  const items: LogItem[] = [];
  for (let page = 1; items.length < MAX_EXPORT_ROWS; page++) {
    const list = await api.get<List<LogItem> & { meta: { total: number; total_pages: number } }>(path, { ...query, page, page_size: 100 });
    items.push(...list.data);
    if (page >= list.meta.total_pages || list.data.length === 0) return { items, more: false };
  }
  return { items, more: true };
}

export function saveFile(text: string, name: string, type = 'text/csv'): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}
