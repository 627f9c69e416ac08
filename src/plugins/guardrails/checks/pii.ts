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

const EMAIL = /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63})+(?![\p{L}\p{N}-])/gu;
const IPV4 = /(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d]|\.\d)/g;
const IPV6 = /(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{0,4}|(?:\d{1,3}\.){3}\d{1,3})(?![\w:])/g;

export function isEmail(candidate: string): boolean {
  const at = candidate.lastIndexOf('@');
  const local = candidate.slice(0, at);
  const domain = candidate.slice(at + 1).replace(/\.$/, '');
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  const labels = domain.split('.');
  if (labels.length < 2 || candidate.length > 254) return false;
  if (labels.some((label) => !label || label.startsWith('-') || label.endsWith('-'))) return false;
  return /^\p{L}{2,63}$/u.test(labels.at(-1)!); // a top-level domain is letters
}

/** IPv4 in dotted-decimal without leading zeros (`010.0.0.1` reads as octal to some parsers: not an address here). */
const isPlainIPv4 = (candidate: string) => isIPv4(candidate) && !/(?:^|\.)0\d/.test(candidate);

type Validator = { pattern: RegExp; valid(candidate: string): boolean };

function validators(regions: readonly string[]): Record<PiiKind, Validator> {
  return {
    email: { pattern: EMAIL, valid: isEmail },
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
        const { pattern, valid } = all[kind];
        for (const match of text.matchAll(pattern)) {
          if (valid(match[0])) findings.push({ start: match.index, end: match.index + match[0].length, category: kind });
        }
        if (kind === 'ip') {
          for (const match of text.matchAll(IPV6)) {
            if (isIPv6(match[0]) && /\d/.test(match[0])) findings.push({ start: match.index, end: match.index + match[0].length, category: 'ip' });
          }
        }
      }
      return overlapFree(findings);
    },
  };
}
