/**
 * Personal data, each candidate validated before it counts: email addresses (RFC 5321 lengths,
 * dot and hyphen rules, any script), phone numbers (checks/phone.ts), payment cards (Luhn) and
 * IBANs (mod 97) (checks/numbers.ts), IPv4 and IPv6 addresses (node:net's parsers).
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Finding, Scanner } from '../types.ts';
import { CARD_CANDIDATE, IBAN_CANDIDATE, isCardNumber, isIban } from './numbers.ts';
import { isPhoneNumber, PHONE_CANDIDATE } from './phone.ts';
import { overlapFree } from './spans.ts';

export const PII_KINDS = ['email', 'phone', 'card', 'iban', 'ip'] as const;
export type PiiKind = (typeof PII_KINDS)[number];

const IPV4 = /(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d]|\.\d)/g;
const LOCAL_CHAR = /[\p{L}\p{N}._%+-]/u;
const DOMAIN_CHAR = /[\p{L}\p{N}.-]/u;
const IPV6_CHAR = /[0-9A-Fa-f:.]/;

/**
 * Spans around each `anchor` character, grown over `left` and `right` characters (at most `max`
 * each way): scanning from the few `@` or `:` of a text instead of trying a pattern at every
 * position keeps a 4 KB prompt well under a tenth of a millisecond.
 */
function* around(text: string, anchor: string, left: RegExp, right: RegExp, max: number): Generator<[number, number]> {
  let lastEnd = -1;
  for (let at = text.indexOf(anchor); at !== -1; at = text.indexOf(anchor, at + 1)) {
    if (at < lastEnd) continue;
    let start = at;
    while (start > 0 && at - start < max && left.test(text[start - 1]!)) start--;
    let end = at + 1;
    while (end < text.length && end - at < max && right.test(text[end]!)) end++;
    lastEnd = end;
    yield [start, end];
  }
}

function* emails(text: string): Generator<[number, number]> {
  for (let [start, end] of around(text, '@', LOCAL_CHAR, DOMAIN_CHAR, 254)) {
    while (end > start && (text[end - 1] === '.' || text[end - 1] === '-')) end--; // a sentence's full stop
    if (isEmail(text.slice(start, end))) yield [start, end];
  }
}

function* ipv6s(text: string): Generator<[number, number]> {
  for (let [start, end] of around(text, ':', IPV6_CHAR, IPV6_CHAR, 45)) {
    while (end > start && text[end - 1] === '.') end--;
    const candidate = text.slice(start, end);
    if (/\d/.test(candidate) && isIPv6(candidate) && !/[\w]/.test(text[start - 1] ?? '') && !/\w/.test(text[end] ?? '')) yield [start, end];
  }
}

const TLD = /^\p{L}{2,63}$/u;

export function isEmail(candidate: string): boolean {
  const at = candidate.lastIndexOf('@');
  const local = candidate.slice(0, at);
  const domain = candidate.slice(at + 1).replace(/\.$/, '');
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  const labels = domain.split('.');
  if (labels.length < 2 || candidate.length > 254) return false;
  if (labels.some((label) => !label || label.startsWith('-') || label.endsWith('-'))) return false;
  return TLD.test(labels.at(-1)!); // a top-level domain is letters
}

/** IPv4 in dotted-decimal without leading zeros (`010.0.0.1` reads as octal to some parsers: not an address here). */
const isPlainIPv4 = (candidate: string) => isIPv4(candidate) && !/(?:^|\.)0\d/.test(candidate);

type Validator = { pattern: RegExp; valid(candidate: string): boolean };

function validators(regions: readonly string[]): Record<Exclude<PiiKind, 'email'>, Validator> {
  return {
    card: { pattern: CARD_CANDIDATE, valid: isCardNumber },
    iban: { pattern: IBAN_CANDIDATE, valid: isIban },
    ip: { pattern: IPV4, valid: isPlainIPv4 },
    phone: { pattern: PHONE_CANDIDATE, valid: (candidate) => isPhoneNumber(candidate, regions) },
  };
}

/**
 * A scanner of the `kinds` asked for. Where two findings overlap the earlier kind in this order
 * wins: a card number is not also reported as a phone number.
 */
export function piiScanner(kinds: readonly PiiKind[], regions: readonly string[]): Scanner {
  const all = validators(regions);
  const order = (['email', 'card', 'iban', 'ip', 'phone'] as const).filter((kind) => kinds.includes(kind));
  return {
    kind: 'scan',
    scan(text) {
      const findings: Finding[] = [];
      for (const kind of order) {
        if (kind === 'email') {
          for (const [start, end] of emails(text)) findings.push({ start, end, category: 'email' });
          continue;
        }
        const { pattern, valid } = all[kind];
        for (const match of text.matchAll(pattern)) {
          if (valid(match[0])) findings.push({ start: match.index, end: match.index + match[0].length, category: kind });
        }
        if (kind === 'ip') for (const [start, end] of ipv6s(text)) findings.push({ start, end, category: 'ip' });
      }
      return overlapFree(findings);
    },
  };
}
