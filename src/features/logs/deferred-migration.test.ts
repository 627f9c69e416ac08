import { describe, expect, it } from 'vitest';
import { createLogStore } from './log-store.ts';
import { withDeferredMigration } from './deferred-migration.ts';
import type { LogStore } from './types.ts';

function fakeStore(failMigrations: number) {
  const calls: string[] = [];
  let failures = failMigrations;
  const store = {
    kind: 'postgres',
    async migrate() {
      calls.push('migrate');
      if (failures-- > 0) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    },
    async insertBatch() {
      calls.push('insertBatch');
    },
    async ping() {
      calls.push('ping');
      return 1;
    },
    async close() {
      calls.push('close');
    },
  } as unknown as LogStore;
  return { store, calls };
}

describe('withDeferredMigration', () => {
  it('refuses calls until migrations succeed, retrying them at most once per interval', async () => {
    const { store, calls } = fakeStore(1);
    const deferred = withDeferredMigration(store, new Error('down at start'), 50);
    await expect(deferred.insertBatch([])).rejects.toThrow(/not ready: down at start/);
    expect(calls).toEqual([]); // within the interval: no new attempt
    await new Promise((r) => setTimeout(r, 60));
    await expect(deferred.insertBatch([])).rejects.toThrow(/ECONNREFUSED/);
    await new Promise((r) => setTimeout(r, 60));
    await deferred.insertBatch([]);
    expect(await deferred.ping()).toBe(1);
    expect(calls).toEqual(['migrate', 'migrate', 'insertBatch', 'ping']);
  });
});

describe('createLogStore with an unreachable PostgreSQL', () => {
  it('starts anyway and reports the store as not ready', async () => {
    const errors: Error[] = [];
    const store = await createLogStore({ dataDir: '/nonexistent', databaseUrl: 'postgres://postgres@127.0.0.1:5999/test', onError: (e) => errors.push(e) });
    try {
      expect(store.kind).toBe('postgres');
      expect(errors[0]?.message).toMatch(/log database unreachable at start, will retry/);
      await expect(store.ping()).rejects.toThrow(/not ready/);
    } finally {
      await store.close();
    }
  });
});
