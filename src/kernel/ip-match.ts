/**
 * IP and CIDR matching (IPv4 and IPv6, IPv4-mapped IPv6 folded to IPv4) on node:net's BlockList.
 */
import { BlockList, isIP } from 'node:net';

const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

export function normalizeIp(ip: string): string {
  const match = mapped.exec(ip);
  return match ? match[1] : ip;
}

/** Build a matcher once per list; entries are addresses or CIDR ranges. */
export function createIpMatcher(entries: string[]): (ip: string) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (!isIP(address)) continue;
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return (ip) => {
    const address = normalizeIp(ip);
    const family = isIP(address);
    if (!family) return false;
    return list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}

const matchers = new WeakMap<string[], (ip: string) => boolean>();

/** Match against a settings list, compiling each list object once. */
export function ipAllowed(ip: string, entries: string[]): boolean {
  let matcher = matchers.get(entries);
  if (!matcher) {
    matcher = createIpMatcher(entries);
    matchers.set(entries, matcher);
  }
  return matcher(ip);
}

/** A syntactically valid address or CIDR range. */
export function isIpOrCidr(entry: string): boolean {
  const [address, bits, extra] = entry.split('/');
  if (extra !== undefined || !isIP(address)) return false;
  if (bits === undefined) return true;
  const max = isIP(address) === 6 ? 128 : 32;
  return /^\d+$/.test(bits) && Number(bits) <= max;
}
