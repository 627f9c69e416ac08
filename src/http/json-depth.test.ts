import { describe, expect, it } from 'vitest';
import { nestedDeeperThan } from './json-depth.ts';

const nested = (depth: number) => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

describe('nestedDeeperThan', () => {
  it('counts the top level as depth 1 and scalars as no depth', () => {
    expect(nestedDeeperThan('x', 0)).toBe(false);
    expect(nestedDeeperThan({}, 0)).toBe(true);
    expect(nestedDeeperThan({}, 1)).toBe(false);
    expect(nestedDeeperThan({ a: { b: [1] } }, 3)).toBe(false);
    expect(nestedDeeperThan({ a: { b: [1] } }, 2)).toBe(true);
    expect(nestedDeeperThan({ a: 1, b: [2, { c: null }] }, 3)).toBe(false);
    expect(nestedDeeperThan({ a: 1, b: [2, { c: {} }] }, 3)).toBe(true);
  });

  it('answers for 100,000 levels without overflowing the stack', () => {
    expect(nestedDeeperThan(nested(100_000), 64)).toBe(true);
    expect(nestedDeeperThan(nested(64), 64)).toBe(false);
    expect(nestedDeeperThan(nested(65), 64)).toBe(true);
  });

  it('stops as soon as a container lies past the limit, reading nothing below it or after it', () => {
    const untouchable = () => {
      throw new Error('read past the answer');
    };
    const tooDeep: any = JSON.parse('{"a":'.repeat(66) + '{}' + '}'.repeat(66));
    let level = tooDeep;
    for (let i = 0; i < 65; i++) level = level.a;
    Object.defineProperty(level, 'below', { get: untouchable, enumerable: true });
    const body = { first: tooDeep };
    Object.defineProperty(body, 'after', { get: untouchable, enumerable: true });
    expect(nestedDeeperThan(body, 64)).toBe(true);
  });
});
