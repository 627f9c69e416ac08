/**
 * The shared store on Redis (ioredis), for several gateway instances behind one load balancer.
 * Checks that must not race (admit, acquire) are single Lua scripts (see scripts.ts). While Redis
 * is away the client reconnects on its own and commands fail at once, so callers can fail open
 * (resilient.ts) instead of queueing requests behind a dead connection.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Redis, RedisOptions } from 'ioredis';
import { assertInteger, assertLease, assertRules, parseCounter } from './rules.ts';
import { ACQUIRE_LUA, ADMIT_LUA, CIRCUIT_CHECK_LUA, CIRCUIT_FAILURE_LUA, COMPARE_AND_SET_LUA } from './scripts.ts';
import type { AdmitResult, CircuitCheck, RateState, StateStore } from './types.ts';

export interface RedisStoreOptions {
  /** Prepended to every key and channel (tests use a random one so parallel runs never collide). */
  prefix?: string;
  /** A command not answered within this many ms fails (default 1000): a hung Redis must not hang requests. */
  commandTimeoutMs?: number;
  /** TCP connect timeout, also how long `createRedisStore` waits for the first connection (default 2000). */
  connectTimeoutMs?: number;
  /** `CLIENT SETNAME` of the connections (`<name>:commands`, `<name>:subscriber`), to spot them in `CLIENT LIST`. */
  connectionName?: string;
  /** Told about connection losses and recoveries (once each). Default: silent. */
  log?: (message: string) => void;
  /**
   * How long an UNSUBSCRIBE, and QUIT at close, may wait for Redis before we stop waiting and
   * disconnect (default 1000): a hung Redis must not hold a shutdown past its grace period.
   */
  closeTimeoutMs?: number;
}

/** How long QUIT and UNSUBSCRIBE may wait at close by default (the shutdown budget counts it). */
export const REDIS_CLOSE_TIMEOUT_MS = 1_000;

/** The client once our scripts are defined on it (`defineCommand` adds these methods at runtime). */
interface ScriptedRedis extends Redis {
  gwAdmit(numKeys: number, ...keysAndArgs: (string | number)[]): Promise<number[]>;
  gwAcquire(key: string, max: number, ttlMs: number, leaseId: string): Promise<number>;
  gwCircuitCheck(key: string, probeHoldMs: number, ttlMs: number): Promise<number[]>;
  gwCircuitFailure(key: string, threshold: number, cooldownMs: number, maxCooldownMs: number, ttlMs: number): Promise<number[]>;
  gwCompareAndSet(key: string, ...args: (string | number)[]): Promise<number>;
}

const VERDICTS: ReadonlyArray<CircuitCheck['verdict']> = ['closed', 'open', 'probe'];

type Role = 'commands' | 'subscriber';

function connect(RedisClient: typeof Redis, url: string, role: Role, options: RedisStoreOptions): Redis {
  const log = options.log ?? (() => {});
  const settings: RedisOptions = {
    connectTimeout: options.connectTimeoutMs ?? 2000,
    // Never give up: back off to one attempt every 2 s until Redis is back.
    retryStrategy: (times) => Math.min(100 * times, 2000),
    // Commands fail fast while disconnected. Only the subscriber queues, so that a SUBSCRIBE made
    // during an outage is sent on reconnect (ioredis then resubscribes by itself after each one).
    enableOfflineQueue: role === 'subscriber',
    maxRetriesPerRequest: role === 'subscriber' ? null : 1,
    commandTimeout: role === 'commands' ? (options.commandTimeoutMs ?? 1000) : undefined,
    // Commands issued in the same tick (a request's quota settlement and usage counters, many
    // requests finishing together) travel in one round trip.
    enableAutoPipelining: role === 'commands',
    connectionName: options.connectionName ? `${options.connectionName}:${role}` : undefined,
  };
  const client = new RedisClient(url, settings);
  let down = false;
  // Without an 'error' listener ioredis prints every failed reconnect; report each outage once.
  client.on('error', (error: Error) => {
    if (!down && role === 'commands') log(`redis unavailable: ${error.message}`);
    down = true;
  });
  client.on('ready', () => {
    if (down && role === 'commands') log('redis connection restored');
    down = false;
  });
  return client;
}

/** Resolves on the first connect, failure or after `ms`: startup must not hang on a dead Redis. */
function firstConnection(client: Redis, ms: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done).off('error', done).off('end', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    client.once('ready', done).once('error', done).once('end', done);
  });
}

/**
 * What `reply` gives, or false when it takes longer than `ms`. A hung Redis (connected, never
 * answering) leaves a command pending for good on a connection without `commandTimeout` (the
 * subscriber's): past the bound we stop waiting; the command is dropped at the disconnect.
 */
async function within(reply: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
  try {
    return await Promise.race([reply, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** QUIT (pending replies delivered first) when Redis answers it within `ms`, else a hard disconnect. */
async function shutdown(client: Redis, ms: number): Promise<void> {
  if (client.status === 'ready' && (await within(client.quit().then(() => true, () => false), ms))) return;
  client.disconnect();
}

/**
 * Connects to Redis and returns the store. Resolves even when Redis is unreachable (the store then
 * reports `healthy: false`, fails its calls fast and keeps reconnecting in the background).
 * @example const store = await createRedisStore('redis://127.0.0.1:6379', { prefix: 'test:1:' });
 */
export async function createRedisStore(url: string, options: RedisStoreOptions = {}): Promise<StateStore> {
  const prefix = options.prefix ?? '';
  const k = (key: string) => prefix + key;
  // Loaded here, not at start: a gateway on the memory store never loads the Redis client.
  const { Redis: RedisClient } = await import('ioredis');
  const client = connect(RedisClient, url, 'commands', options) as ScriptedRedis;
  const subscriber = connect(RedisClient, url, 'subscriber', options);
  client.defineCommand('gwAdmit', { lua: ADMIT_LUA });
  client.defineCommand('gwAcquire', { lua: ACQUIRE_LUA, numberOfKeys: 1 });
  client.defineCommand('gwCircuitCheck', { lua: CIRCUIT_CHECK_LUA, numberOfKeys: 1 });
  client.defineCommand('gwCircuitFailure', { lua: CIRCUIT_FAILURE_LUA, numberOfKeys: 1 });
  client.defineCommand('gwCompareAndSet', { lua: COMPARE_AND_SET_LUA, numberOfKeys: 1 });
  const wait = options.connectTimeoutMs ?? 2000;
  await Promise.all([firstConnection(client, wait), firstConnection(subscriber, wait)]);

  // Hit members must be unique across instances: an instance tag plus a per-process sequence.
  const instance = randomBytes(6).toString('base64url');
  let sequence = 0;
  // Local fan-out per prefixed channel: one Redis subscription however many local listeners;
  // `ready` settles when that subscription is in place, so every subscriber can wait for it.
  const channels = new Map<string, { listeners: Set<(message: string) => void>; ready: Promise<void> }>();
  subscriber.on('message', (channel: string, message: string) => {
    for (const listener of channels.get(channel)?.listeners ?? []) listener(message);
  });

  const closeTimeoutMs = options.closeTimeoutMs ?? REDIS_CLOSE_TIMEOUT_MS;
  /** Sends a subscriber command; awaited only when connected, else it is queued for reconnect. */
  async function subscriberCommand(command: Promise<unknown>): Promise<void> {
    if (subscriber.status === 'ready') await command;
    else command.catch(() => {});
  }
  /**
   * An UNSUBSCRIBE, waited for `closeTimeoutMs` at most: the local listeners are gone already,
   * so nothing waits on Redis's reply (it is sent on reconnect, or dropped at close).
   */
  async function unsubscribeCommand(name: string): Promise<void> {
    const sent = subscriber.unsubscribe(name).then(() => true, () => false);
    if (subscriber.status === 'ready') await within(sent, closeTimeoutMs);
  }

  return {
    kind: 'redis',
    get healthy() {
      return client.status === 'ready';
    },
    async get(key) {
      return client.get(k(key));
    },
    async set(key, value, ttlMs) {
      if (ttlMs && ttlMs > 0) await client.set(k(key), value, 'PX', Math.ceil(ttlMs));
      else await client.set(k(key), value);
    },
    async del(key) {
      await client.del(k(key));
    },
    async keys(match) {
      // SCAN in batches (never KEYS, which blocks Redis), the prefixes taken literally in the pattern.
      const pattern = `${k(match).replace(/[*?[\]\\]/g, '\\$&')}*`;
      const found = new Set<string>();
      let cursor = '0';
      do {
        // Plain values only (TYPE, Redis 6): windows, leases and the like are other types.
        const [next, batch] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000, 'TYPE', 'string');
        cursor = next;
        // SCAN may answer a key twice.
        for (const key of batch) found.add(key.slice(prefix.length));
      } while (cursor !== '0');
      return [...found];
    },
    async compareAndSet(key, expected, value, ttlMs) {
      const ttl = ttlMs && ttlMs > 0 ? Math.ceil(ttlMs) : 0;
      return (await client.gwCompareAndSet(k(key), expected === null ? 0 : 1, expected ?? '', value === null ? 0 : 1, value ?? '', ttl)) === 1;
    },
    async incrBy(key, delta) {
      assertInteger(delta, 'incrBy delta');
      return client.incrby(k(key), delta);
    },
    async getCounters(keys) {
      if (keys.length === 0) return [];
      const raw = await client.mget(...keys.map(k));
      return raw.map(parseCounter);
    },
    async admit(rates, quotas): Promise<AdmitResult> {
      assertRules(rates, quotas);
      const keys = [...rates.map((r) => k(r.key)), ...quotas.map((q) => k(q.key))];
      const args = [
        rates.length,
        `${instance}.${sequence++}`,
        ...rates.flatMap((r) => [r.limit, r.windowMs]),
        ...quotas.flatMap((q) => [q.limit, q.reserve, q.ttlMs ?? 0]),
      ];
      const [allowed, kind, index, used, , ...triples] = await client.gwAdmit(keys.length, ...keys, ...args);
      const states = rates.map(
        (rule, i): RateState => ({ key: rule.key, limit: rule.limit, remaining: triples[3 * i]!, resetMs: triples[3 * i + 1]!, clearMs: triples[3 * i + 2]! }),
      );
      if (allowed === 1) return { allowed: true, rates: states };
      const quota = quotas[index! - 1];
      const refusedBy: AdmitResult['refusedBy'] =
        kind === 2 && quota
          ? { kind: 'quota', key: quota.key, used: used!, limit: quota.limit }
          : { kind: 'rate', index: index! - 1 };
      return { allowed: false, rates: states, refusedBy };
    },
    async acquire(key, max, ttlMs) {
      assertLease(key, max, ttlMs);
      const leaseId = randomUUID();
      return (await client.gwAcquire(k(key), max, ttlMs, leaseId)) === 1 ? leaseId : null;
    },
    async release(key, leaseId) {
      await client.zrem(k(key), leaseId);
    },
    async circuitCheck(key, probeHoldMs, ttlMs) {
      const [verdict, failures, retryInMs] = await client.gwCircuitCheck(k(key), probeHoldMs, Math.ceil(ttlMs));
      return { verdict: VERDICTS[verdict!] ?? 'closed', failures: failures!, retryInMs: retryInMs! };
    },
    async circuitFailure(key, rule) {
      const [failures, openUntil, cooldownMs, probing] = await client.gwCircuitFailure(
        k(key), rule.threshold, rule.cooldownMs, rule.maxCooldownMs, Math.ceil(rule.ttlMs),
      );
      return { failures: failures!, openUntil: openUntil!, cooldownMs: cooldownMs!, probing: probing === 1 };
    },
    async publish(channel, message) {
      await client.publish(k(channel), message);
    },
    async subscribe(channel, onMessage) {
      const name = k(channel);
      // A wrapper per call: the same function subscribed twice is two subscriptions. One
      // listener's bug must not stop delivery to the others; listeners log their own errors.
      const listener = (message: string) => {
        try {
          onMessage(message);
        } catch {
          /* ignored on purpose, see above */
        }
      };
      let entry = channels.get(name);
      if (!entry) {
        entry = { listeners: new Set(), ready: subscriberCommand(subscriber.subscribe(name)) };
        channels.set(name, entry);
      }
      const { listeners } = entry;
      listeners.add(listener);
      const unsubscribe = async () => {
        if (!listeners.delete(listener) || listeners.size > 0 || channels.get(name) !== entry) return;
        channels.delete(name);
        await unsubscribeCommand(name);
      };
      try {
        await entry.ready;
      } catch (error) {
        await unsubscribe().catch(() => {});
        throw error;
      }
      return unsubscribe;
    },
    async ping() {
      const started = performance.now();
      await client.ping();
      return performance.now() - started;
    },
    async close() {
      channels.clear();
      await Promise.all([shutdown(client, closeTimeoutMs), shutdown(subscriber, closeTimeoutMs)]);
    },
  };
}
