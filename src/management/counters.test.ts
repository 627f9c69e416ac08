import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../runtime.ts';
import { createMemoryStore } from '../store/memory.ts';
import { groupQuotaKey, persistCounters, providerQuotaKey } from './counters.ts';

const silent = { info() {}, warn() {}, error() {} };
let dir: string;
afterEach(async () => rm(dir, { recursive: true, force: true }));

function runtimeOn(dataDir: string): Runtime {
  const config = { groups: [{ id: 'g' }], providers: [{ id: 'p' }], keys: [{ id: 'k' }] };
  return { store: createMemoryStore(), dataDir, snapshot: { config } } as unknown as Runtime;
}

describe('persistCounters (memory store)', () => {
  it('keeps quota_used and key usage across a restart', async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-counters-'));
    const first = runtimeOn(dir);
    const saved = await persistCounters(first, silent, 60_000);
    await first.store.incrBy(groupQuotaKey('g'), 42);
    await first.store.incrBy(providerQuotaKey('p'), 7);
    await first.store.incrBy('gw:usage:key:k:requests', 3);
    await saved.close();
    expect(JSON.parse(await readFile(join(dir, 'counters.json'), 'utf8'))).toEqual({
      'gw:quota:group:g': 42,
      'gw:quota:provider:p': 7,
      'gw:usage:key:k:requests': 3,
    });

    const second = runtimeOn(dir);
    const loaded = await persistCounters(second, silent, 60_000);
    expect(await second.store.getCounters([groupQuotaKey('g'), providerQuotaKey('p'), 'gw:usage:key:k:requests'])).toEqual([42, 7, 3]);
    await loaded.close();
  });
});
