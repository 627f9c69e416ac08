import { describe, expect, it } from 'vitest';
import { nestedDeeperThan } from './json-depth.ts';

const nested = (depth: number) => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

describe('nestedDeeperThan', () => {
  it('counts the top level as depth 1 and scalars as no depth', () => {
    expect(nestedDeeperThan('x', 0)).toBe(false);
    expect(nestedDeeperThan({}, 1)).toBe(false);
    expect(nestedDeeperThan({ a: { b: [1] } }, 3)).toBe(false);
    expect(nestedDeeperThan({ a: { b: [1] } }, 2)).toBe(true);
  });

  it('walks 100,000 levels without recursion', () => {
    expect(nestedDeeperThan(nested(100_000), 64)).toBe(true);
    expect(nestedDeeperThan(nested(64), 64)).toBe(false);
  });
});
