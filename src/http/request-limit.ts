/**
 * Request rate limits outside inference, each a budget of its own so that one kind of traffic
 * cannot spend another's: the management API per account and per client address
 * (`management.rate_limit` a minute), the OAuth endpoints, discovery and sign-in pages per client
 * address (`oauth.rate_limit` a minute). A script polling the management API from an office
 * therefore never turns `/oauth/token` or discovery into 429s for everyone behind that address.
 * Every rule goes through the store's atomic admit (one round trip, shared by every instance on
 * Redis). The master key is not limited, as on inference.
 */
import type { Principal } from '../pipeline/principal.ts';
import { rateLimited } from '../kernel/errors.ts';
import type { Runtime } from '../pipeline/runtime.ts';
import type { RateRule } from '../store/types.ts';

const WINDOW_MS = 60_000;

/** How long to wait when refused. */
export interface Refusal {
  retryAfterS: number;
  limit: number;
}

/** Admits one request against `rules` (all of `limit` a minute): the refusal, or null when admitted. */
async function admit(runtime: Runtime, rules: RateRule[], limit: number): Promise<Refusal | null> {
  const result = await runtime.store.admit(rules, []);
  if (result.allowed) return null;
  const refusing = result.refusedBy?.kind === 'rate' ? result.rates[result.refusedBy.index]! : result.rates[0]!;
  return { retryAfterS: refusing.resetMs / 1000, limit };
}

/** The management budget: per address, and per account for a signed-in caller. */
export async function managementRefusal(runtime: Runtime, ip: string, principal: Principal): Promise<Refusal | null> {
  const limit = runtime.current().config.management.rate_limit;
  if (limit <= 0 || principal.kind === 'master') return null;
  return admit(runtime, [
    { key: `gw:rl:manage:address:${ip}`, limit, windowMs: WINDOW_MS },
    { key: `gw:rl:manage:account:${principal.accountId}`, limit, windowMs: WINDOW_MS },
  ], limit);
}

/** The OAuth budget (endpoints, discovery, sign-in pages): per address, as no caller is known yet. */
export async function oauthRefusal(runtime: Runtime, ip: string): Promise<Refusal | null> {
  const limit = runtime.current().config.oauth.rate_limit;
  if (limit <= 0) return null;
  return admit(runtime, [{ key: `gw:rl:oauth:address:${ip}`, limit, windowMs: WINDOW_MS }], limit);
}

/** Throws 429 (OpenAI error shape, Retry-After) when the management call is over a limit. */
export async function limitManagementCall(runtime: Runtime, ip: string, principal: Principal): Promise<void> {
  const refused = await managementRefusal(runtime, ip, principal);
  if (refused) {
    throw rateLimited(refused.retryAfterS, { 'x-ratelimit-limit-requests': String(refused.limit), 'x-ratelimit-remaining-requests': '0' }, 'Too many management requests. Retry later.');
  }
}
