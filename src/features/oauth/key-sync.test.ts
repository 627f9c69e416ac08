import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { sealConfig } from '../../config/write/config-sync.ts';
import type { Logger } from '../../kernel/logger.ts';
import { createMemoryStore } from '../../store/memory.ts';
import type { StateStore } from '../../store/types.ts';
import { startKeySync, type KeySync } from './key-sync.ts';
import type { Jwks, OAuthKeys } from './keys.ts';
import { RETIRED_KEY_MS, SHARED_KEYS_ENTRY, sharedJwks } from './shared-keys.ts';

const MASTER = 'master-key-for-tests-0123456789';

/** A one-key set with a readable kid. */
function keySet(kid: string): Jwks {
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  return { keys: [{ ...jwk, kid, use: 'sig', alg: 'RS256' }] };
}
const [L, S, T] = [keySet('local'), keySet('shared'), keySet('third')];

/** A memory store that answers like Redis (what instances on one Redis see), which can be cut off. */
function sharedStore() {
  const link = { up: true };
  const store = new Proxy(createMemoryStore(), {
    get: (target, name) => (name === 'kind' ? 'redis' : name === 'healthy' ? link.up : Reflect.get(target, name)),
  }) as StateStore;
  return { store, link };
}

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string) => void lines.push(message);
  return { lines, info: keep, warn: keep, error: keep };
}

/** The stored set, as an instance starting now would read it. */
const stored = (store: StateStore) => sharedJwks(store, MASTER, () => Promise.reject(new Error('nothing stored')), recordingLogger());
const kids = (keys: OAuthKeys | Jwks) => ('jwks' in keys ? keys.jwks : keys).keys.map((key) => key.kid);

async function until(check: () => boolean | Promise<boolean>, limitMs = 3000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const running: KeySync[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((sync) => sync.stop()));
});

function start(store: StateStore, initial: Jwks, extra: { now?: () => number; checkEveryMs?: number } = {}) {
  const logger = recordingLogger();
  const changes: OAuthKeys[] = [];
  const sync = startKeySync({ store, masterKey: MASTER, logger, initial, onChange: (keys) => changes.push(keys), tickMs: 10, checkEveryMs: 60_000, ...extra });
  running.push(sync);
  return { sync, logger, changes };
}

describe('OAuth key sync between instances on one Redis', () => {
  it('an instance that started without Redis stores its set once Redis answers, when none is stored', async () => {
    const { store, link } = sharedStore();
    link.up = false;
    const a = start(store, L);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await store.get(SHARED_KEYS_ENTRY)).toBeNull();
    link.up = true;
    await until(async () => (await store.get(SHARED_KEYS_ENTRY)) !== null);
    expect(kids(await stored(store))).toEqual(['local']);
    expect(kids(a.sync.current())).toEqual(['local']);
    expect(a.changes).toEqual([]);
  });

  it('adopts a different stored set without a restart; its own key joins the shared set to verify, on every instance', async () => {
    const { store } = sharedStore();
    await sharedJwks(store, MASTER, async () => S, recordingLogger());
    const b = start(store, S);
    const a = start(store, L);
    await until(() => kids(a.sync.current()).join() === 'shared,local' && kids(b.sync.current()).join() === 'shared,local');
    // One signing key (and cookie key) everywhere; the previous ones still verify.
    expect(a.sync.current().cookieKeys).toEqual(b.sync.current().cookieKeys);
    expect(a.sync.current().cookieKeys).toHaveLength(2);
    expect(a.sync.current().jwks.keys[0]!.d).toBe(S.keys[0]!.d);
    expect(kids(await stored(store))).toEqual(['shared', 'local']);
    expect(a.changes).toHaveLength(1);
    expect(b.changes).toHaveLength(1);
    expect(a.logger.lines).toEqual([expect.stringContaining('now signing with the key set shared through Redis')]);
    expect(b.logger.lines).toEqual([expect.stringContaining('the keys that verify changed')]);
  });

  it('stores the set again after Redis lost it (FLUSH), without changing any key', async () => {
    const { store } = sharedStore();
    await sharedJwks(store, MASTER, async () => S, recordingLogger());
    const a = start(store, S, { checkEveryMs: 50 });
    const b = start(store, S, { checkEveryMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    await store.del(SHARED_KEYS_ENTRY);
    await until(async () => (await store.get(SHARED_KEYS_ENTRY)) !== null);
    expect(kids(await stored(store))).toEqual(['shared']);
    expect([a.changes, b.changes]).toEqual([[], []]);
  });

  it('after a FLUSH, an instance starting with new keys wins, and the running ones follow it at once', async () => {
    const { store } = sharedStore();
    await sharedJwks(store, MASTER, async () => S, recordingLogger());
    const a = start(store, S);
    await new Promise((resolve) => setTimeout(resolve, 50)); // its first comparison is behind it
    await store.del(SHARED_KEYS_ENTRY);
    // A newcomer (fresh data dir) finds nothing stored and stores its set; it announces it.
    await sharedJwks(store, MASTER, async () => T, recordingLogger());
    const c = start(store, T);
    await until(() => kids(a.sync.current()).join() === 'third,shared' && kids(c.sync.current()).join() === 'third,shared');
  });

  it('stops verifying with a retired key once its time is over', async () => {
    const { store } = sharedStore();
    let now = Date.now();
    await sharedJwks(store, MASTER, async () => S, recordingLogger());
    const a = start(store, L, { now: () => now, checkEveryMs: 20 });
    await until(() => kids(a.sync.current()).join() === 'shared,local');
    now += RETIRED_KEY_MS + 1;
    await until(() => kids(a.sync.current()).join() === 'shared');
    await until(async () => kids(await stored(store)).join() === 'shared');
  });

  it('leaves an entry sealed under another master key alone, keeps its keys and warns once', async () => {
    const { store } = sharedStore();
    const foreign = sealConfig('another-master-key-0123456789', 'oauth-jwks-v1', { text: JSON.stringify(T), secrets: {} });
    await store.set(SHARED_KEYS_ENTRY, foreign);
    const a = start(store, L, { checkEveryMs: 20 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await store.get(SHARED_KEYS_ENTRY)).toBe(foreign);
    expect(kids(a.sync.current())).toEqual(['local']);
    expect(a.logger.lines).toEqual([expect.stringContaining('sealed under another GATEWAY_MASTER_KEY')]);
  });
});
