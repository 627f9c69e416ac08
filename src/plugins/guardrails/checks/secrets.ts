/**
 * Credentials by shape, each checked beyond the pattern: API keys (`sk-…`, `ghp_…`, `AIza…`) need
 * enough length and both letters and digits; AWS access key ids their exact form; a private key
 * block its BEGIN and END lines; a JWT a header that decodes to a JSON object naming `alg`.
 */
import type { Finding, Scanner } from '../types.ts';
import { overlapFree } from './spans.ts';

export const SECRET_KINDS = ['api_key', 'aws_key', 'private_key', 'jwt'] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

const API_KEY = /(?<![\w-])(?:sk-(?:proj-|ant-(?:api\d\d-)?|svcacct-)?[A-Za-z0-9_-]{20,}|ghp_[A-Za-z0-9]{36}|AIza[0-9A-Za-z_-]{35})(?![\w-])/g;
const AWS_KEY = /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z2-7]{16}(?![A-Z0-9])/g;
const PRIVATE_KEY = /-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?-----END \1-----/g;
const PRIVATE_KEY_START = /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY/g;
const JWT = /(?<![\w-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*(?![\w-])/g;

/** A key's random part mixes letters and digits: `sk-this-is-not-a-key-at-all` is prose. */
function looksRandom(candidate: string): boolean {
  const body = candidate.replace(/^(?:sk-(?:proj-|ant-(?:api\d\d-)?|svcacct-)?|ghp_|AIza)/, '');
  return /\d/.test(body) && /[A-Za-z]/.test(body) && !/^[a-z]+(?:-[a-z]+)+$/.test(body);
}

/** The header of a JWT: base64url of a JSON object with a string `alg`; the payload JSON too. */
export function isJwt(candidate: string): boolean {
  const [header, payload] = candidate.split('.');
  const decoded = [header, payload].map(base64UrlJson);
  const head = decoded[0] as { alg?: unknown } | null;
  return !!head && typeof head.alg === 'string' && decoded[1] !== null;
}

function base64UrlJson(part: string | undefined): Record<string, unknown> | null {
  if (!part || !/^[A-Za-z0-9_-]+$/.test(part)) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const KINDS: Record<SecretKind, { pattern: RegExp; valid(candidate: string): boolean }> = {
  api_key: { pattern: API_KEY, valid: looksRandom },
  aws_key: { pattern: AWS_KEY, valid: () => true },
  private_key: { pattern: PRIVATE_KEY, valid: () => true },
  jwt: { pattern: JWT, valid: isJwt },
};

export function secretsScanner(kinds: readonly SecretKind[]): Scanner {
  const order = SECRET_KINDS.filter((kind) => kinds.includes(kind));
  const holdsKeys = order.includes('private_key');
  return {
    kind: 'scan',
    scan(text) {
      const findings: Finding[] = [];
      for (const kind of order) {
        const { pattern, valid } = KINDS[kind];
        for (const match of text.matchAll(pattern)) {
          if (valid(match[0])) findings.push({ start: match.index, end: match.index + match[0].length, category: kind });
        }
      }
      return overlapFree(findings);
    },
    // A key block arrives over many chunks: hold the stream from its BEGIN until its END shows.
    holdFrom: holdsKeys ? (text) => unterminatedKeyStart(text) : undefined,
  };
}

function unterminatedKeyStart(text: string): number {
  let open = -1;
  for (const match of text.matchAll(PRIVATE_KEY_START)) open = match.index;
  if (open === -1) return -1;
  return text.indexOf('-----END ', open) === -1 ? open : -1;
}
