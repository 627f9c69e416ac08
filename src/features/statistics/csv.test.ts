import { describe, expect, it } from 'vitest';
import { toCsv } from './csv.ts';

/** A strict RFC 4180 reader, to prove what toCsv writes reads back the same. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue; }
      if (c === '"') { quoted = false; i++; continue; }
      field += c; i++; continue;
    }
    if (c === '"' && field === '') { quoted = true; i++; continue; }
    if (c === ',') { row.push(field); field = ''; i++; continue; }
    if (c === '\r' && text[i + 1] === '\n') { row.push(field); rows.push(row); row = []; field = ''; i += 2; continue; }
    if (c === '"' || c === '\r' || c === '\n') throw new Error(`unquoted ${JSON.stringify(c)} at ${i}`);
    field += c; i++;
  }
  if (field !== '' || row.length) throw new Error('missing final CRLF');
  return rows;
}

describe('toCsv', () => {
  it('writes a header and quotes quotes, commas and newlines (round trip)', () => {
    const rows = [
      { model: 'plain', n: 1 },
      { model: 'with,comma', n: 2.5 },
      { model: 'say "hi"', n: 0 },
      { model: 'two\nlines\r\nhere', n: -1 },
      { model: '', n: null },
    ];
    const csv = toCsv(rows, ['model', 'n']);
    expect(csv).toBe('model,n\r\nplain,1\r\n"with,comma",2.5\r\n"say ""hi""",0\r\n"two\nlines\r\nhere",-1\r\n,\r\n');
    expect(parseCsv(csv)).toEqual([
      ['model', 'n'], ['plain', '1'], ['with,comma', '2.5'], ['say "hi"', '0'], ['two\nlines\r\nhere', '-1'], ['', ''],
    ]);
  });

  it('writes only the header when there are no rows', () => {
    expect(toCsv([], ['date', 'total_cost'])).toBe('date,total_cost\r\n');
  });

  it('writes text a spreadsheet would run as a formula with a leading apostrophe (CSV injection)', () => {
    const rows = [
      { model: "=cmd|' /C calc'!A0", requests: 1 },
      { model: '+SUM(A1:A9)', requests: -2 },
      { model: '@HYPERLINK("http://x")', requests: 3 },
      { model: '-1+1', requests: 4 },
      { model: '\tgpt', requests: 5 },
      { model: '-12.5', requests: 6 },
      { model: 'gpt-4o', requests: 7 },
    ];
    expect(parseCsv(toCsv(rows, ['model', 'requests']))).toEqual([
      ['model', 'requests'],
      ["'=cmd|' /C calc'!A0", '1'],
      ["'+SUM(A1:A9)", '-2'],
      ['\'@HYPERLINK("http://x")', '3'],
      ["'-1+1", '4'],
      ["'\tgpt", '5'],
      ['-12.5', '6'],
      ['gpt-4o', '7'],
    ]);
  });
});
