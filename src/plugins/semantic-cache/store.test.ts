/** The in-memory semantic store: threshold, best match, TTL, LRU bounds per partition and overall. */
import { describe, expect, it } from 'vitest';
import { createMemorySemanticStore, normalized, similarity } from './store.ts';

const v = (...values: number[]) => normalized(values);

describe('memory semantic store', () => {
  it('answers the most similar entry at or above the threshold, per partition', async () => {
    const store = createMemorySemanticStore({ ttlMs: 1000, maxEntries: 10, maxPartitions: 10 });
    await store.add('p', v(1, 0), 'east');
    await store.add('p', v(0.9, 0.1), 'mostly-east');
    expect(await store.search('p', v(1, 0.05), 0.9)).toMatchObject({ completion: 'east' });
    expect(await store.search('p', v(0, 1), 0.9)).toBeNull();
    expect(await store.search('other', v(1, 0), 0.5)).toBeNull();
    expect(similarity(v(1, 0), v(1, 0, 0))).toBe(-1); // another dimension never matches
  });

  it('forgets entries after the TTL', async () => {
    let time = 0;
    const store = createMemorySemanticStore({ ttlMs: 100, maxEntries: 10, maxPartitions: 10 }, () => time);
    await store.add('p', v(1, 0), 'a');
    time = 99;
    expect(await store.search('p', v(1, 0), 0.9)).not.toBeNull();
    time = 100;
    expect(await store.search('p', v(1, 0), 0.9)).toBeNull();
  });

  it('keeps at most max_entries per partition, least recently used out', async () => {
    const store = createMemorySemanticStore({ ttlMs: 1000, maxEntries: 2, maxPartitions: 10 });
    await store.add('p', v(1, 0), 'x');
    await store.add('p', v(0, 1), 'y');
    expect(await store.search('p', v(1, 0), 0.9)).toMatchObject({ completion: 'x' }); // x is now the most recent
    await store.add('p', v(-1, 0), 'z');
    expect(await store.search('p', v(0, 1), 0.9)).toBeNull();
    expect(await store.search('p', v(1, 0), 0.9)).toMatchObject({ completion: 'x' });
  });

  it('keeps at most max_partitions, least recently used out', async () => {
    const store = createMemorySemanticStore({ ttlMs: 1000, maxEntries: 2, maxPartitions: 2 });
    await store.add('a', v(1, 0), 'a');
    await store.add('b', v(1, 0), 'b');
    await store.search('a', v(1, 0), 0.9);
    await store.add('c', v(1, 0), 'c');
    expect(await store.search('b', v(1, 0), 0.9)).toBeNull();
    expect(await store.search('a', v(1, 0), 0.9)).not.toBeNull();
  });
});
