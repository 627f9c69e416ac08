/**
 * Which upstream URLs an admin may write (a provider's or a model's `endpoint`). The gateway
 * sends requests, with the provider's credentials, to that URL from inside the operator's network,
 * so an endpoint is a way to reach what only the gateway can reach. Only `http:` and `https:` are
 * upstream schemes: `file:`, `gopher:`, `unix:` and the rest are refused. The link-local
 * range (169.254.0.0/16, fe80::/10) holds the cloud metadata services that hand out the machine's
 * credentials (169.254.169.254, AWS's IPv6 fd00:ec2::254), so it is refused unless
 * `server.allow_link_local_upstreams` says otherwise. Loopback and private addresses stay allowed:
 * a vLLM on the same host or network is a normal upstream.
 *
 * The address is read as the WHATWG URL parser reads it, which is what the HTTP client connects
 * to: decimal, hex and octal IPv4 spellings (`http://2852039166/`, `http://0xa9fea9fe/`) come out
 * as dotted quads, and IPv6 in its canonical form. IPv4-mapped, IPv4-compatible and NAT64 forms
 * of a link-local address are refused too. A host *name* is not resolved here (it may change its
 * address later anyway); only the metadata names clouds publish are refused by name.
 */
import { BlockList } from 'node:net';
import type { PathProblem } from './problems.ts';

const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
// IPv4-compatible (deprecated, still parsed) and NAT64 (RFC 6052) spellings of 169.254.0.0/16;
// the IPv4-mapped form (::ffff:a9fe:a9fe) is matched by the IPv4 rule itself.
LINK_LOCAL.addSubnet('::a9fe:0', 112, 'ipv6');
LINK_LOCAL.addSubnet('64:ff9b::a9fe:0', 112, 'ipv6');
LINK_LOCAL.addAddress('fd00:ec2::254', 'ipv6');

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog']);

const SCHEMES = new Set(['http:', 'https:']);

/** The setting that lets an endpoint reach the link-local range. */
export const ALLOW_LINK_LOCAL = 'server.allow_link_local_upstreams';

/** Why `endpoint` may not be an upstream, or null when it may. */
export function endpointProblem(endpoint: string, allowLinkLocal: boolean): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'is not a URL the gateway can call (an absolute http:// or https:// URL)';
  }
  if (!SCHEMES.has(url.protocol)) return `uses the scheme "${url.protocol}"; an upstream endpoint must be http:// or https://`;
  if (allowLinkLocal) return null;
  const host = url.hostname;
  const v6 = host.startsWith('[') ? host.slice(1, -1) : null;
  const blocked = v6 !== null ? LINK_LOCAL.check(v6, 'ipv6') : /^[0-9.]+$/.test(host) ? LINK_LOCAL.check(host, 'ipv4') : METADATA_NAMES.has(host.replace(/\.$/, ''));
  if (!blocked) return null;
  return `points at ${host}, a link-local or cloud metadata address (169.254.0.0/16, fe80::/10, fd00:ec2::254), which is refused by default; set ${ALLOW_LINK_LOCAL}: true to allow it`;
}

interface Raw {
  server?: { allow_link_local_upstreams?: boolean };
  providers?: { endpoint?: unknown }[];
  models?: { endpoint?: unknown }[];
}

/** Every endpoint of gateway.yaml (schema-valid, interpolated data) that endpointProblem refuses. */
export function checkUpstreamEndpoints(data: unknown): PathProblem[] {
  const d = data as Raw;
  const allow = d.server?.allow_link_local_upstreams === true;
  const problems: PathProblem[] = [];
  for (const collection of ['providers', 'models'] as const) {
    d[collection]?.forEach((item, i) => {
      if (typeof item.endpoint !== 'string') return;
      const message = endpointProblem(item.endpoint, allow);
      if (message) problems.push({ segments: [collection, i, 'endpoint'], message });
    });
  }
  return problems;
}
