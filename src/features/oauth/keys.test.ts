import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sealConfig } from '../../config/write/config-sync.ts';
import type { Logger } from '../../kernel/logger.ts';
import { createMemoryStore } from '../../store/memory.ts';
import type { StateStore } from '../../store/types.ts';
import { loadOAuthKeys, toKeys, type Jwks } from './keys.ts';
import { SHARED_KEYS_ENTRY } from './shared-keys.ts';

const MASTER = 'master-key-for-tests-0123456789';
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-oauth-keys-'));
  dirs.push(dir);
  return join(dir, 'data');
}

/** A memory store that answers like Redis: what instances sharing one Redis see. */
function sharedStore(): StateStore {
  const store = createMemoryStore();
  return new Proxy(store, { get: (target, name) => (name === 'kind' ? 'redis' : Reflect.get(target, name)) });
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => {}, error: () => {}, warn: (message) => warnings.push(message) };
}

const kid = (jwks: Jwks) => jwks.keys[0]!.kid;

describe('OAuth keys', () => {
  it('without Redis, come from GATEWAY_DATA_DIR/oauth-jwks.json (0600), created once and kept', async () => {
    const dir = await dataDir();
    const store = createMemoryStore();
    const logger = recordingLogger();
    const first = await loadOAuthKeys({ dataDir: dir, store, masterKey: MASTER }, logger);
    const again = await loadOAuthKeys({ dataDir: dir, store, masterKey: MASTER }, logger);
    expect(kid(again)).toBe(kid(first));
    expect(toKeys(again).cookieKeys).toEqual(toKeys(first).cookieKeys);
    expect((await stat(join(dir, 'oauth-jwks.json'))).mode & 0o777).toBe(0o600);
    expect(await store.get(SHARED_KEYS_ENTRY)).toBeNull();
    expect(logger.warnings).toEqual([]);
  });

  it('instances on one Redis that start at the same moment end up on one key set, stored sealed', async () => {
    const store = sharedStore();
    const dirsOf = await Promise.all([1, 2, 3, 4].map(() => dataDir()));
    const logger = recordingLogger();
    const all = await Promise.all(dirsOf.map((dir) => loadOAuthKeys({ dataDir: dir, store, masterKey: MASTER }, logger)));
    expect(new Set(all.map(kid)).size).toBe(1);
    expect(new Set(all.map((jwks) => toKeys(jwks).cookieKeys[0])).size).toBe(1);
    const stored = (await store.get(SHARED_KEYS_ENTRY))!;
    expect(stored).not.toContain(String(all[0]!.keys[0]!.d));
    // Each keeps a copy in its own file as well.
    for (const dir of dirsOf) expect(JSON.parse(await readFile(join(dir, 'oauth-jwks.json'), 'utf8')).keys[0].kid).toBe(kid(all[0]!));
    expect(logger.warnings).toEqual([]);
  });

  it('the first instance on a Redis shares the key file it has; a later one uses the shared set, not its own file', async () => {
    const store = sharedStore();
    const [kept, other] = [await dataDir(), await dataDir()];
    const before = await loadOAuthKeys({ dataDir: kept, store: createMemoryStore() }, recordingLogger());
    const stale = await loadOAuthKeys({ dataDir: other, store: createMemoryStore() }, recordingLogger());
    const logger = recordingLogger();
    expect(kid(await loadOAuthKeys({ dataDir: kept, store, masterKey: MASTER }, logger))).toBe(kid(before));
    expect(kid(await loadOAuthKeys({ dataDir: other, store, masterKey: MASTER }, logger))).toBe(kid(before));
    expect(kid(stale)).not.toBe(kid(before));
    expect(logger.warnings).toEqual([expect.stringContaining('differs from the OAuth keys shared through Redis')]);
  });

  it('with Redis but no master key, keep the file and warn that the instances must share it', async () => {
    const store = sharedStore();
    const dir = await dataDir();
    const logger = recordingLogger();
    const keys = await loadOAuthKeys({ dataDir: dir, store }, logger);
    expect(JSON.parse(await readFile(join(dir, 'oauth-jwks.json'), 'utf8')).keys[0].kid).toBe(kid(keys));
    expect(await store.get(SHARED_KEYS_ENTRY)).toBeNull();
    expect(logger.warnings).toEqual([expect.stringMatching(/without GATEWAY_MASTER_KEY.*every instance must share/)]);
  });

  it('a set sealed under another master key is replaced, with a warning', async () => {
    const store = sharedStore();
    await store.set(SHARED_KEYS_ENTRY, sealConfig('another-master-key-0123456789', 'oauth-jwks-v1', { text: '{"keys":[]}', secrets: {} }));
    const logger = recordingLogger();
    const keys = await loadOAuthKeys({ dataDir: await dataDir(), store, masterKey: MASTER }, logger);
    expect(kid(await loadOAuthKeys({ dataDir: await dataDir(), store, masterKey: MASTER }, logger))).toBe(kid(keys));
    expect(logger.warnings).toEqual([expect.stringContaining('sealed under another GATEWAY_MASTER_KEY')]);
  });
});
