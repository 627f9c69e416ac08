/**
 * The client's address: the socket peer, or, when the peer is a configured trusted proxy, the
 * nearest untrusted address in X-Forwarded-For (walking from the right, as proxies append).
 */
import { createIpMatcher, normalizeIp } from '../kernel/ip-match.ts';

const matchers = new WeakMap<string[], (ip: string) => boolean>();

export function clientIp(peer: string, forwardedFor: string | null, trustedProxies: string[]): string {
  const address = normalizeIp(peer || '');
  if (!forwardedFor || trustedProxies.length === 0) return address;
  let trusted = matchers.get(trustedProxies);
  if (!trusted) {
    trusted = createIpMatcher(trustedProxies);
    matchers.set(trustedProxies, trusted);
  }
  if (!trusted(address)) return address;
  const hops = forwardedFor.split(',').map((hop) => normalizeIp(hop.trim())).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!trusted(hops[i])) return hops[i];
  return hops[0] ?? address;
}

/** The client address of an incoming request (srvx exposes the socket peer as `request.ip`). */
export function requestIp(request: Request, trustedProxies: string[]): string {
  return clientIp((request as Request & { ip?: string }).ip ?? '', request.headers.get('x-forwarded-for'), trustedProxies);
}
