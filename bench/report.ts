/**
 * The bench's tables: one row per measured figure, one column per target, each gateway cell
 * with its difference to going straight to the mock. Printed as text and as Markdown.
 */

export interface Row {
  label: string;
  /** Figure per target name; missing when the target was not measured. */
  values: Record<string, number | undefined>;
  unit: 'rps' | 'streams/s' | 'ms' | 'MiB';
  /** Show the difference to the `direct` column (latency rows). */
  added?: boolean;
}

const fmt = (value: number, unit: Row['unit']) =>
  unit === 'rps' || unit === 'streams/s' ? Math.round(value).toLocaleString('en-US') : unit === 'MiB' ? value.toFixed(0) : value.toFixed(2);

function cell(row: Row, name: string): string {
  const value = row.values[name];
  if (value === undefined || Number.isNaN(value)) return '–';
  const direct = row.values.direct;
  if (!row.added || name === 'direct' || direct === undefined) return fmt(value, row.unit);
  const diff = value - direct;
  return `${fmt(value, row.unit)} (${diff >= 0 ? '+' : '−'}${Math.abs(diff).toFixed(2)})`;
}

export function textTable(rows: Row[], columns: string[]): string {
  const header = ['', ...columns];
  const body = rows.map((row) => [`${row.label} (${row.unit})`, ...columns.map((c) => cell(row, c))]);
  const widths = header.map((_, i) => Math.max(...[header, ...body].map((line) => line[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('   ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

export function markdownTable(rows: Row[], columns: string[]): string {
  const lines = [`| | ${columns.join(' | ')} |`, `|---|${columns.map(() => '---:').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.label} (${row.unit}) | ${columns.map((c) => cell(row, c)).join(' | ')} |`);
  return lines.join('\n');
}
