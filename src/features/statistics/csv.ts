/**
 * CSV writing per RFC 4180: comma separated, CRLF line ends, a field quoted when it holds a
 * quote, comma, CR or LF, with quotes doubled inside.
 *
 * Text a caller chose (a model name is whatever a request named) reaches an admin's spreadsheet:
 * a text field that a spreadsheet would run as a formula (it starts with = + - @, a tab or a CR)
 * is written with a leading apostrophe, as OWASP advises against CSV injection. Numbers, and text
 * that is a plain number, are written as they are.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/** One CSV field. null/undefined become empty; objects are written as JSON. */
export function csvField(value: unknown): string {
  if (value == null) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
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
