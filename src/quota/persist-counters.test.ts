import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../pipeline/runtime.ts';
import { createMemoryStore } from '../store/memory.ts';
import { quotaCounter, quotaKey } from './counter.ts';
import { persistCounters } from './persist-counters.ts';

const silent = { info() {}, warn() {}, error() {} };
let dir: string;
afterEach(async () => rm(dir, { recursive: true, force: true }));

function runtimeOn(dataDir: string): Runtime {
  const config = {
    groups: [{ id: 'g' }],
    providers: [{ id: 'p', quota_period: 'daily' }],
    keys: [{ id: 'k', account: 'a', permissions: { quota_limit: 100, quota_period: 'monthly' } }],
    settings: { account: { timezone: 'UTC' } },
  };
  return { store: createMemoryStore(), dataDir, current: () => ({ config }), services: {} } as unknown as Runtime;
}

describe('persistCounters (memory store)', () => {
  it('keeps quota_used (of the current periods) and key usage across a restart', async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-counters-'));
    const daily = quotaCounter('provider', 'p', 'daily', 'UTC', Date.now()).key;
    const monthly = quotaCounter('key', 'k', 'monthly', 'UTC', Date.now()).key;
    const first = runtimeOn(dir);
    const saved = await persistCounters(first, silent, 60_000);
    await first.store.incrBy(quotaKey('group', 'g'), 42);
    await first.store.incrBy(daily, 7);
    await first.store.incrBy(monthly, 9);
    await first.store.incrBy('gw:usage:key:k:requests', 3);
    await saved.close();
    expect(JSON.parse(await readFile(join(dir, 'counters.json'), 'utf8'))).toEqual({
      'gw:quota:group:g': 42,
      [daily]: 7,
      [monthly]: 9,
      'gw:usage:key:k:requests': 3,
    });

    const second = runtimeOn(dir);
    const loaded = await persistCounters(second, silent, 60_000);
    expect(await second.store.getCounters([quotaKey('group', 'g'), daily, monthly, 'gw:usage:key:k:requests'])).toEqual([42, 7, 9, 3]);
    await loaded.close();
  });
});
