/**
 * Spilling to Redis: on Kubernetes the data directory is an emptyDir, deleted with the pod, so a
 * spill file (spill.ts) written while PostgreSQL is down would go with it. With `REDIS_URL` set the
 * records the shutdown could not store are pushed to a Redis list instead (`gw:log-spill`, under
 * GATEWAY_REDIS_PREFIX), which outlives the pod; the file stays the fallback when Redis is down too.
 *
 * Any instance stores the list: at start, then every `pollMs` while it runs (an instance stopped
 * during an outage leaves rows the survivors pick up). One instance at a time, under a lease
 * (`gw:log-spill:lease`, renewed per element): it reads the head element, stores its records,
 * and only then removes that element (LREM of the exact value). A crash or a lost lease between
 * the two stores the element again later, which the stores ignore per id (rollups included).
 * An element holds one JSON `LogRecord` per line, like a spill file; one with damaged lines is
 * moved to `gw:log-spill:unreadable` once its readable records are stored.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../../pipeline/types.ts';
import { parseSpillText } from './spill.ts';
import { storeSpilledRecords } from './spill-replay.ts';
import type { LogRecord, LogStore } from './types.ts';

export const SPILL_LIST = 'gw:log-spill';
export const SPILL_LEASE = 'gw:log-spill:lease';
export const SPILL_UNREADABLE = 'gw:log-spill:unreadable';
/** Connect and command timeout of the spill connection. */
const REDIS_SPILL_TIMEOUT_MS = 2_000;
/** The longest a push may take at shutdown before the file is written instead (the grace period counts it). */
export const REDIS_SPILL_DEADLINE_MS = 2_500;
/** Records per list element: one element is stored, then removed, as a unit. */
const RECORDS_PER_ELEMENT = 200;
const LEASE_MS = 60_000;
/** How long QUIT may wait at close. */
export const REDIS_SPILL_CLOSE_MS = 1_000;

const RENEW_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE_LUA = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export interface RedisSpillOptions {
  /** GATEWAY_REDIS_PREFIX. */
  prefix?: string;
  /** How often a running instance looks for rows other instances left (default 30 s). */
  pollMs?: number;
  /** First pause after a failed store write (default 1 s), doubled up to `pollMs`. */
  retryBaseMs?: number;
  batchSize?: number;
}

export interface RedisSpill {
  /** Pushes `records` in one atomic RPUSH; rejects when Redis does not take them in time. */
  push(records: readonly LogRecord[]): Promise<void>;
  /** Starts storing the list into `store` (at once, then every `pollMs`) until `close()`. */
  replayInto(store: LogStore): void;
  /** The pass running now, if any (tests). */
  readonly idle: Promise<void>;
  /** Elements waiting in the list at the last pass (each up to 200 rows): the store has not taken them yet. */
  readonly pending: number;
  close(): Promise<void>;
}

/** Opens a Redis connection of its own (the state store's falls back to memory when Redis fails). */
export async function openRedisSpill(url: string, logger: Logger, options: RedisSpillOptions = {}): Promise<RedisSpill> {
  const { Redis: RedisClient } = await import('ioredis');
  const client: Redis = new RedisClient(url, {
    keyPrefix: options.prefix || undefined,
    connectTimeout: REDIS_SPILL_TIMEOUT_MS,
    commandTimeout: REDIS_SPILL_TIMEOUT_MS,
    // Fail at once while disconnected: a shutdown then writes the file without waiting.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(200 * times, 5_000),
    connectionName: 'llm-gateway:log-spill',
  });
  // The state store already reports Redis outages; without a listener ioredis prints each retry.
  client.on('error', () => {});
  await connected(client, REDIS_SPILL_TIMEOUT_MS);
  const pollMs = options.pollMs ?? 30_000;
  const retryBase = options.retryBaseMs ?? 1_000;
  const batchSize = options.batchSize ?? 500;
  const token = randomBytes(12).toString('hex');
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let idle: Promise<void> = Promise.resolve();
  let pending = 0;

  /** Stores the list's elements in order while the lease is ours; rejects when the store fails. */
  async function drain(store: LogStore): Promise<void> {
    for (;;) {
      if (stopped) return;
      if (!(await client.eval(RENEW_LUA, 1, SPILL_LEASE, token, LEASE_MS))) return; // the lease moved on
      const element = await client.lindex(SPILL_LIST, 0);
      if (element === null) return;
      const { records, unreadable } = parseSpillText(element);
      await storeSpilledRecords(store, records, batchSize, logger);
      if (unreadable > 0) {
        await client.rpush(SPILL_UNREADABLE, element);
        logger.error('log spill element in Redis has damaged lines: its readable records are stored, the element is kept', { list: SPILL_UNREADABLE, unreadable });
      }
      await client.lrem(SPILL_LIST, 1, element);
      logger.info('spilled log records stored', { from: 'redis', records: records.length });
    }
  }

  /** One pass: take the lease if the list has anything, store it, release. Never rejects. */
  async function pass(store: LogStore): Promise<boolean> {
    try {
      pending = await client.llen(SPILL_LIST);
      if (pending === 0) return true;
      if ((await client.set(SPILL_LEASE, token, 'PX', LEASE_MS, 'NX')) !== 'OK') return true; // another instance stores it
      try {
        await drain(store);
      } finally {
        await client.eval(RELEASE_LUA, 1, SPILL_LEASE, token).catch(() => {});
        pending = await client.llen(SPILL_LIST).catch(() => pending);
      }
      return true;
    } catch (error) {
      logger.warn('cannot store the log records spilled to Redis yet; retrying', { error: String(error) });
      return false;
    }
  }

  function schedule(store: LogStore, ms: number, failures: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      idle = pass(store).then((ok) => schedule(store, ok ? pollMs : Math.min(pollMs, retryBase * 2 ** Math.min(failures, 20)), ok ? 0 : failures + 1));
    }, ms);
    timer.unref();
  }

  return {
    async push(records) {
      const elements: string[] = [];
      for (let i = 0; i < records.length; i += RECORDS_PER_ELEMENT) {
        elements.push(records.slice(i, i + RECORDS_PER_ELEMENT).map((record) => `${JSON.stringify(record)}\n`).join(''));
      }
      // Reconnecting after a blip: wait for it a moment rather than fail over to the file at once.
      await connected(client, REDIS_SPILL_TIMEOUT_MS);
      if (elements.length > 0) await client.rpush(SPILL_LIST, ...elements);
    },
    replayInto(store) {
      schedule(store, 0, 0);
    },
    get idle() {
      return idle;
    },
    get pending() {
      return pending;
    },
    async close() {
      stopped = true;
      clearTimeout(timer);
      // A pass in flight is not awaited: its element stays in the list if it did not finish.
      if (client.status === 'ready') await Promise.race([client.quit().catch(() => {}), new Promise((r) => setTimeout(r, REDIS_SPILL_CLOSE_MS).unref())]);
      client.disconnect();
    },
  };
}

/** Resolves once `client` is connected, or after `ms` (then its commands fail at once). */
function connected(client: Redis, ms: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    client.once('ready', done);
  });
}
