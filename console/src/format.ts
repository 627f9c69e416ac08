/** Display helpers: numbers, money, dates and durations for the tables and cards. */

const integer = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

export const formatInt = (value: number | null | undefined) => (value == null ? '—' : integer.format(value));
export const formatCompact = (value: number | null | undefined) => (value == null ? '—' : compact.format(value));

export function formatMoney(value: number | null | undefined, currency = 'CNY'): string {
  if (value == null) return '—';
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency, maximumFractionDigits: value !== 0 && Math.abs(value) < 1 ? 4 : 2 }).format(value);
  } catch {
    return `${value.toFixed(4)} ${currency}`;
  }
}

export const formatPercent = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)}%`;

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });
}

export const formatMs = (ms: number | null | undefined) => (ms == null ? '—' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

export function formatDuration(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return d ? `${d}d ${h}h` : h ? `${h}h ${m}m` : `${m}m ${seconds % 60}s`;
}

/** YYYY-MM-DD of `date` in `timeZone` (the statistics API counts days in the account's zone). */
export function dayIn(timeZone: string, date = new Date()): string {
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
  } catch {
    return date.toISOString().slice(0, 10);
  }
}

export const daysBefore = (day: string, count: number) => {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - count);
  return date.toISOString().slice(0, 10);
};
