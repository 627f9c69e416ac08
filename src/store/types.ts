/**
 * Shared state behind one small interface: in memory for a single process (the embedded
 * default), Redis when instances share state. Keys are `gw:<area>:<id>`; implementations add
 * nothing to them except the optional instance prefix used by tests.
 */

/** A sliding-window request limit: at most `limit` hits per `windowMs` (`limit` <= 0: unlimited, not recorded). */
export interface RateRule {
  key: string;
  limit: number;
  windowMs: number;
}

/**
 * A token budget: refuse when `used >= limit`; on admission reserve `reserve` (settled later).
 * `ttlMs` (> 0) makes the counter expire that long after it is first counted: a periodic budget
 * counts under a key per period, which goes away once nothing can settle on it any more.
 */
export interface QuotaRule {
  key: string;
  limit: number;
  reserve: number;
  ttlMs?: number;
}

export interface RateState {
  key: string;
  limit: number;
  remaining: number;
  /** Milliseconds until a slot frees (0 while one is free): what a refusal's Retry-After waits for. */
  resetMs: number;
  /**
   * Milliseconds until every counted hit has left the window, so the limit is back to its initial
   * state (0 when none is counted): OpenAI's `x-ratelimit-reset-requests`.
   */
  clearMs: number;
}

export interface AdmitResult {
  allowed: boolean;
  /** One entry per rate rule, in the order given. */
  rates: RateState[];
  /** Which rule refused: a rate rule (index into rates) or a quota rule key. Quotas are reported first. */
  refusedBy?: { kind: 'rate'; index: number } | { kind: 'quota'; key: string; used: number; limit: number };
}

/** A deployment's circuit as the store keeps it (the rules are in routing/breaker.ts). */
export interface CircuitState {
  /** Consecutive upstream-health failures. */
  failures: number;
  /** Skip the deployment until this time (ms, the store's clock); 0 when closed. */
  openUntil: number;
  /** The current open period; doubles on each failed probe, up to the cap. */
  cooldownMs: number;
  /** A half-open probe is running (until openUntil). */
  probing: boolean;
}

/** How a circuit reacts to failures: open at `threshold`, for `cooldownMs` doubling to `maxCooldownMs`. */
export interface CircuitRule {
  threshold: number;
  cooldownMs: number;
  maxCooldownMs: number;
  /** Forget a quiet circuit after this long. */
  ttlMs: number;
}

/** `closed`: call it; `open`: skip it for `retryInMs`; `probe`: call it as the one half-open probe. */
export interface CircuitCheck {
  verdict: 'closed' | 'open' | 'probe';
  failures: number;
  retryInMs: number;
}

export interface StateStore {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | null>;
  /** `ttlMs` 0 or absent: no expiry. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  del(key: string): Promise<void>;
  /**
   * The keys of plain values that start with `prefix` (SCAN on Redis, so never on a request's
   * path: for maintenance at startup, such as moving stored data to a new form).
   */
  keys(prefix: string): Promise<string[]>;
  /**
   * Atomically replaces a plain value when it is `expected` (null: only when absent) with `value`
   * (`ttlMs` as in `set`), or deletes it when `value` is null. Resolves true when it did. The step
   * a cluster lease needs: take when free, renew or release only one's own token.
   */
  compareAndSet(key: string, expected: string | null, value: string | null, ttlMs?: number): Promise<boolean>;
  /** Atomically add to an integer counter; returns the new value. */
  incrBy(key: string, delta: number): Promise<number>;
  /** Read several integer counters at once (missing = 0). */
  getCounters(keys: string[]): Promise<number[]>;
  /**
   * One atomic check of every rate rule and quota: if all pass, record the hit in each window and
   * reserve each quota's amount; otherwise change nothing. One round trip on Redis.
   */
  admit(rates: RateRule[], quotas: QuotaRule[]): Promise<AdmitResult>;
  /**
   * Concurrency lease: take a slot of `key` if fewer than `max` are held. A crashed holder's lease
   * expires after `ttlMs`. Returns a lease id, or null when full.
   */
  acquire(key: string, max: number, ttlMs: number): Promise<string | null>;
  release(key: string, leaseId: string): Promise<void>;
  publish(channel: string, message: string): Promise<void>;
  /** Returns an unsubscribe function. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>>;
  /**
   * Read a circuit; when its open period is over, make this caller the half-open probe and hold
   * other callers off for `max(cooldown, probeHoldMs)`. One atomic step (one round trip on Redis).
   */
  circuitCheck(key: string, probeHoldMs: number, ttlMs: number): Promise<CircuitCheck>;
  /** Count one failure and open (or reopen, longer, after a failed probe) the circuit: one atomic step. */
  circuitFailure(key: string, rule: CircuitRule): Promise<CircuitState>;
  /** Round-trip latency in ms; throws when unreachable. */
  ping(): Promise<number>;
  /** Healthy connection right now (no I/O). */
  readonly healthy: boolean;
  close(): Promise<void>;
}
