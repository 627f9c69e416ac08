/**
 * Request rate limits outside inference: the management API per account and per client address,
 * the OAuth endpoints per client address (`management.rate_limit` a minute each), so neither can
 * be used to hammer the gateway. Both rules go through the store's atomic admit (one round trip,
 * shared by every instance on Redis). The master key is not limited, as on inference.
 */
import type { Principal } from '../pipeline/principal.ts';
import { rateLimited } from '../kernel/errors.ts';
import type { Runtime } from '../pipeline/runtime.ts';
import type { RateRule } from '../store/types.ts';

const WINDOW_MS = 60_000;

/** Seconds to wait when refused, or null when admitted. */
export async function refusedFor(runtime: Runtime, ip: string, principal: Principal | null): Promise<{ retryAfterS: number; limit: number } | null> {
  const limit = runtime.current().config.management.rate_limit;
  if (limit <= 0 || principal?.kind === 'master') return null;
  const rules: RateRule[] = [{ key: `gw:rl:manage:address:${ip}`, limit, windowMs: WINDOW_MS }];
  if (principal) rules.push({ key: `gw:rl:manage:account:${principal.accountId}`, limit, windowMs: WINDOW_MS });
  const result = await runtime.store.admit(rules, []);
  if (result.allowed) return null;
  const refusing = result.refusedBy?.kind === 'rate' ? result.rates[result.refusedBy.index]! : result.rates[0]!;
  return { retryAfterS: refusing.resetMs / 1000, limit };
}

/** Throws 429 (OpenAI error shape, Retry-After) when the management call is over a limit. */
export async function limitManagementCall(runtime: Runtime, ip: string, principal: Principal): Promise<void> {
  const refused = await refusedFor(runtime, ip, principal);
  if (refused) {
    throw rateLimited(refused.retryAfterS, { 'x-ratelimit-limit-requests': String(refused.limit), 'x-ratelimit-remaining-requests': '0' }, 'Too many management requests. Retry later.');
  }
}
