import { describe, expect, it } from 'vitest';
import { own } from './own.ts';

describe('own', () => {
  const table: Record<string, number> = { a: 1 };
  it("finds the table's entries and nothing of Object's", () => {
    expect(own(table, 'a')).toBe(1);
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) expect(own(table, name)).toBeUndefined();
  });
});
