/**
 * e2e helper: gateway instances sharing one Redis (each with its own copy of a fixture, as
 * separate machines would have), started in-process on free ports.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RunningGateway } from '../src/boot/gateway.ts';
import { createLogger } from '../src/kernel/logger.ts';
import { startGateway } from '../src/server.ts';
import { createMemoryStore, createRedisStore, createResilientStore } from '../src/store/index.ts';
import { MASTER_KEY } from './_setup.ts';

export const TEST_REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Instance {
  gateway: RunningGateway;
  url: string;
  dir: string;
  close(): Promise<void>;
}

/**
 * Starts one instance on `fixture` (under test/fixtures) with state on Redis under `prefix`
 * (random per test file, so parallel runs never collide). `env` adds to the environment.
 */
export async function startRedisInstance(fixture: string, redisUrl: string, prefix: string, env: Record<string, string> = {}): Promise<Instance> {
  const dir = await mkdtemp(join(tmpdir(), 'gw-multi-'));
  const configFile = join(dir, 'gateway.yaml');
  await cp(resolve('test/fixtures', fixture), configFile);
  const logger = createLogger('silent');
  const store = createResilientStore(await createRedisStore(redisUrl, { prefix, connectTimeoutMs: 500, commandTimeoutMs: 300 }), createMemoryStore());
  const fullEnv = { GATEWAY_CONFIG: configFile, GATEWAY_MASTER_KEY: MASTER_KEY, GATEWAY_DATA_DIR: join(dir, 'data'), PORT: '0', HOST: '127.0.0.1', ...env };
  const { gateway, server, url } = await startGateway({ env: fullEnv, logger, watch: true, store });
  return {
    gateway,
    url,
    dir,
    async close() {
      await server.close(true);
      await gateway.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
