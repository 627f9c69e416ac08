/**
 * Lua scripts of the Redis store. Each runs atomically on the server, so a check and its write can
 * never interleave with another gateway instance (no read-then-write races). Time comes from the
 * server's `TIME`, never the client clock, so every instance judges windows by the same clock.
 * Scripts are registered with ioredis `defineCommand` (EVALSHA, falling back to EVAL on NOSCRIPT).
 */

/**
 * `now` in integer ms from the Redis server clock, and `stamp`, the exact µs time as a string (Lua
 * 5.1 prints big numbers with 14 significant digits, too few for µs, hence the concatenation).
 */
const kNow = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local stamp = t[1] .. '.' .. t[2]
`;

/**
 * `admit`: KEYS = rate window keys (n) then quota keys (m).
 * ARGV = n, nonce, then per rate rule: limit, windowMs; then per quota rule: limit, reserve, ttlMs.
 * Returns { allowed, refusedKind (0 none, 1 rate, 2 quota), refusedIndex (1-based),
 *           quotaUsed, quotaLimit, then per rate rule: remaining, resetMs, clearMs }:
 * resetMs until the oldest hit leaves the window (a slot frees; 0 while one is free), clearMs until
 * the newest does (the window is empty again; 0 when it holds no hit).
 *
 * A window is a ZSET of hits scored by their time in ms; a hit counts while `score > now - window`.
 * Members are `<s.µs>:<nonce>:<i>` so two hits in the same millisecond stay distinct. A rate rule with
 * limit <= 0 and a quota with limit <= 0 are unlimited (quota usage is still counted).
 * Quota refusals take precedence over rate refusals: waiting (Retry-After) would not help them.
 * A quota counter with ttlMs > 0 gets that expiry when it has none (a periodic budget's key).
 */
export const ADMIT_LUA = `${kNow}
local n = tonumber(ARGV[1])
local nonce = ARGV[2]
local m = #KEYS - n
local kind, index, qUsed, qLimit = 0, 0, 0, 0

for j = 1, m do
  local limit = tonumber(ARGV[3 + 2 * n + 3 * (j - 1)])
  if limit > 0 and kind == 0 then
    local used = tonumber(redis.call('GET', KEYS[n + j]) or '0') or 0
    if used >= limit then kind, index, qUsed, qLimit = 2, j, used, limit end
  end
end

local counts = {}
for i = 1, n do
  local limit = tonumber(ARGV[1 + 2 * i])
  local window = tonumber(ARGV[2 + 2 * i])
  local count = 0
  if limit > 0 then
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
    count = redis.call('ZCARD', KEYS[i])
    if count >= limit and kind == 0 then kind, index = 1, i end
  end
  counts[i] = count
end

local allowed = kind == 0
local out = { allowed and 1 or 0, kind, index, qUsed, qLimit }
for i = 1, n do
  local limit = tonumber(ARGV[1 + 2 * i])
  local window = tonumber(ARGV[2 + 2 * i])
  local remaining, reset, clear = 0, 0, 0
  if limit > 0 then
    local count = counts[i]
    if allowed then
      redis.call('ZADD', KEYS[i], now, stamp .. ':' .. nonce .. ':' .. i)
      redis.call('PEXPIRE', KEYS[i], math.ceil(window))
      count = count + 1
    end
    remaining = math.max(0, limit - count)
    if remaining == 0 then
      local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
      local first = oldest[2] and tonumber(oldest[2]) or now
      reset = math.max(1, math.ceil(first + window - now))
    end
    if allowed then
      clear = math.max(1, math.ceil(window))
    elseif count > 0 then
      local newest = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
      local last = newest[2] and tonumber(newest[2]) or now
      clear = math.max(1, math.ceil(last + window - now))
    end
  end
  out[#out + 1] = remaining
  out[#out + 1] = reset
  out[#out + 1] = clear
end

if allowed then
  for j = 1, m do
    local at = 3 + 2 * n + 3 * (j - 1)
    local reserve = tonumber(ARGV[at + 1])
    local ttl = tonumber(ARGV[at + 2])
    if reserve ~= 0 then
      redis.call('INCRBY', KEYS[n + j], reserve)
      if ttl > 0 and redis.call('PTTL', KEYS[n + j]) < 0 then redis.call('PEXPIRE', KEYS[n + j], math.ceil(ttl)) end
    end
  end
end
return out
`;

/**
 * `acquire`: KEYS[1] = lease ZSET (lease id scored by expiry in ms). ARGV = max, ttlMs, leaseId.
 * Drops expired leases (a crashed holder's), then takes a slot if fewer than `max` are held.
 * Returns 1 when taken, 0 when full. The key lives as long as its longest lease.
 */
export const ACQUIRE_LUA = `${kNow}
local max = tonumber(ARGV[1])
local ttl = math.ceil(tonumber(ARGV[2]))
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= max then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
`;

/** Decode a stored circuit (store/circuit.ts `parseCircuit`): a missing or unreadable one is closed. */
const kCircuit = `
local raw = redis.call('GET', KEYS[1])
local ok, s = false, nil
if raw then ok, s = pcall(cjson.decode, raw) end
if not ok or type(s) ~= 'table' then s = {} end
local failures = tonumber(s.failures) or 0
local openUntil = tonumber(s.openUntil) or 0
local cooldown = tonumber(s.cooldownMs) or 0
local probing = s.probing == true
local function save(ttl)
  redis.call('SET', KEYS[1], cjson.encode({ failures = failures, openUntil = openUntil, cooldownMs = cooldown, probing = probing }), 'PX', ttl)
end
`;

/**
 * `circuitCheck` (store/circuit.ts `checkCircuit`): KEYS[1] = circuit, ARGV = probeHoldMs, ttlMs.
 * Returns { verdict (0 closed, 1 open, 2 probe), failures, retryInMs }.
 */
export const CIRCUIT_CHECK_LUA = `${kNow}${kCircuit}
if openUntil == 0 then return { 0, failures, 0 } end
if now < openUntil then return { 1, failures, openUntil - now } end
probing = true
openUntil = now + math.max(cooldown, tonumber(ARGV[1]))
save(ARGV[2])
return { 2, failures, 0 }
`;

/**
 * `circuitFailure` (store/circuit.ts `failCircuit`): KEYS[1] = circuit,
 * ARGV = threshold, cooldownMs, maxCooldownMs, ttlMs. Returns { failures, openUntil, cooldownMs, probing }.
 */
export const CIRCUIT_FAILURE_LUA = `${kNow}${kCircuit}
local threshold, base, cap = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
failures = failures + 1
if probing or (openUntil > 0 and now >= openUntil) then
  cooldown = math.min(cap, math.max(cooldown, 1) * 2)
  openUntil = now + cooldown
  probing = false
elseif openUntil == 0 and failures >= threshold then
  cooldown = base
  openUntil = now + base
end
save(ARGV[4])
return { failures, openUntil, cooldown, probing and 1 or 0 }
`;

/**
 * `compareAndSet`: KEYS[1] = a plain value. ARGV = hasExpected (1/0), expected, hasValue (1/0),
 * value, ttlMs (0: no expiry). Replaces the value (or deletes it when hasValue is 0) only when it
 * is `expected`, or absent when hasExpected is 0. Returns 1 when replaced, 0 otherwise.
 */
export const COMPARE_AND_SET_LUA = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
if ARGV[3] ~= '1' then
  redis.call('DEL', KEYS[1])
elseif tonumber(ARGV[5]) > 0 then
  redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5])
else
  redis.call('SET', KEYS[1], ARGV[4])
end
return 1
`;
