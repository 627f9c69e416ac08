import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../config/holder.ts';
import { createLogger } from '../kernel/logger.ts';
import { createGateway, DEFAULT_DRAIN_TIMEOUT_MS, drainTimeoutFrom, type RunningGateway } from './gateway.ts';

const BASE = await readFile(new URL('../../test/fixtures/management.yaml', import.meta.url), 'utf8');
const MISPLACED = 'pipeline:\n  - log\n  - auth\n  - rate-limit\n  - route\n  - upstream\n';
let dir: string;
let file: string;
const open = () =>
  createGateway({ configFile: file, env: { MOCK_URL: 'http://127.0.0.1:9/v1', GATEWAY_DATA_DIR: join(dir, 'data') }, logger: createLogger('silent'), watch: false });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-boot-'));
  file = join(dir, 'gateway.yaml');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('plugin setup', () => {
  it('may read the config in force (runtime.current()) while the first pipeline is set up', async () => {
    await writeFile(
      join(dir, 'reads-config.mjs'),
      `export default { name: 'reads-config', schema: {}, failure: 'closed',
        setup(_options, { runtime }) { globalThis.readsConfigSaw = runtime.current().version; return {}; } };\n`,
    );
    await writeFile(file, `${BASE}pipeline:\n  - auth\n  - module: ./reads-config.mjs\n  - route\n  - upstream\n`);
    const gateway = await open();
    try {
      expect((globalThis as { readsConfigSaw?: number }).readsConfigSaw).toBe(1);
      expect(gateway.runtime.current().version).toBe(1);
    } finally {
      await gateway.close();
    }
  });
});

describe('step order rules', () => {
  it('refuse to start on a pipeline that lists rate-limit before route, naming the line', async () => {
    await writeFile(file, `${BASE}${MISPLACED}`);
    const line = BASE.split('\n').length + 3; // `- rate-limit`, the pipeline's third entry
    const error = await open().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      `${file}:${line}:5 pipeline[2] "rate-limit" must run after "route" (listed at pipeline[3]): provider quotas need the routed provider (checked in the same atomic call as the rates)`,
    ]);
  });

  it('refuse such a reload and keep the config in force', async () => {
    await writeFile(file, BASE);
    const gateway: RunningGateway = await open();
    try {
      const before = gateway.config.current();
      await writeFile(file, `${BASE}${MISPLACED}`);
      const status = await gateway.config.reload();
      expect(status.ok).toBe(false);
      expect(status.error).toMatch(/gateway\.yaml:\d+:5 pipeline\[2\] "rate-limit" must run after "route"/);
      expect(gateway.config.current()).toBe(before);
    } finally {
      await gateway.close();
    }
  });
});

describe('shutdown with a drain deadline', () => {
  it('GATEWAY_DRAIN_TIMEOUT_MS: 30 s by default, milliseconds when set, anything else refused', () => {
    expect(drainTimeoutFrom({})).toBe(DEFAULT_DRAIN_TIMEOUT_MS);
    expect(DEFAULT_DRAIN_TIMEOUT_MS).toBe(30_000);
    expect(drainTimeoutFrom({ GATEWAY_DRAIN_TIMEOUT_MS: '5000' })).toBe(5000);
    expect(drainTimeoutFrom({ GATEWAY_DRAIN_TIMEOUT_MS: '0' })).toBe(0);
    expect(() => drainTimeoutFrom({ GATEWAY_DRAIN_TIMEOUT_MS: '30s' })).toThrow(/GATEWAY_DRAIN_TIMEOUT_MS must be a number of milliseconds/);
    expect(() => drainTimeoutFrom({ GATEWAY_DRAIN_TIMEOUT_MS: '-1' })).toThrow(/GATEWAY_DRAIN_TIMEOUT_MS/);
  });

  it('with nothing in flight, closes at once without ending anything', async () => {
    await writeFile(file, BASE);
    const gateway = await open();
    let cut = 0;
    const started = Date.now();
    await gateway.close({ drainTimeoutMs: 10_000, stopListening: async () => {}, cutConnections: () => cut++ });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(cut).toBe(0);
    expect(gateway.runtime.transport.stopping?.stopped).toBe(false);
  });

  it('past the deadline ends the upstream calls, then cuts the connections left, and still closes', async () => {
    await writeFile(file, BASE);
    const gateway = await open();
    let cut = 0;
    const started = Date.now();
    // Connections that never close by themselves (a client that stopped reading).
    await gateway.close({ drainTimeoutMs: 100, stopListening: () => new Promise(() => {}), cutConnections: () => cut++ });
    expect(gateway.runtime.transport.stopping?.stopped).toBe(true);
    expect(cut).toBe(1);
    expect(Date.now() - started).toBeLessThan(100 + 2 * 2000 + 1000);
  });
});
