import { describe, expect, it } from 'vitest';
import { createRequestId } from './request-id.ts';

describe('createRequestId', () => {
  it('is req_ + 32 hex digits, the first 12 the time', () => {
    const id = createRequestId(0x18c_0000_0001);
    expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(id.slice(4, 16)).toBe('018c00000001');
  });

  it('sorts by time and does not repeat', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => createRequestId(1_700_000_000_000 + Math.floor(i / 10)));
    expect(new Set(ids).size).toBe(ids.length);
    const times = ids.map((id) => id.slice(4, 16));
    expect([...times].sort()).toEqual(times);
  });
});
