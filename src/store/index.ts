/**
 * Picks the state store at startup: Redis (fail-open over a local memory store) when `REDIS_URL`
 * is set, so instances share limits; the embedded memory store otherwise, its durable values
 * (durable-keys.ts) kept in `<GATEWAY_DATA_DIR>/state.db`.
 */
import { join, resolve } from 'node:path';
import { openDurableFile } from './durable-file.ts';
import { createMemoryStore } from './memory.ts';
import { createRedisStore } from './redis.ts';
import { createResilientStore } from './resilient.ts';
import type { StateStore } from './types.ts';

export type { StateStore } from './types.ts';
export { createMemoryStore } from './memory.ts';
export { createRedisStore } from './redis.ts';
export { createResilientStore } from './resilient.ts';

/**
 * Creates the process's store from the environment. Never fails on an unreachable Redis: the
 * store starts degraded (`healthy: false`, local limits) and switches over once Redis answers.
 * @param log told about Redis outages and recoveries (once each); default `console.warn`.
 */
export async function createStore(
  env: NodeJS.ProcessEnv = process.env,
  log: (message: string) => void = (message) => console.warn(message),
): Promise<StateStore> {
  const url = env.REDIS_URL?.trim();
  // Settings, two-factor status and OAuth grants survive a restart in the data directory.
  if (!url) return createMemoryStore({ durable: openDurableFile(join(resolve(env.GATEWAY_DATA_DIR ?? './data'), 'state.db')) });
  // GATEWAY_REDIS_PREFIX separates gateways (or test runs) sharing one Redis.
  const shared = await createRedisStore(url, { prefix: env.GATEWAY_REDIS_PREFIX || undefined });
  return createResilientStore(shared, createMemoryStore(), log);
}
