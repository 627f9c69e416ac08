/**
 * CSV writing per RFC 4180: comma separated, CRLF line ends, a field quoted when it holds a
 * quote, comma, CR or LF, with quotes doubled inside.
 */

/** One CSV field. null/undefined become empty; objects are written as JSON. */
export function csvField(value: unknown): string {
  if (value == null) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header row of `columns`, then one row per object (missing fields left empty). */
export function toCsv(rows: readonly object[], columns: readonly string[]): string {
  const lines = [columns.map(csvField).join(',')];
  for (const row of rows) {
    const r = row as Record<string, unknown>;
    lines.push(columns.map((c) => csvField(r[c])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
