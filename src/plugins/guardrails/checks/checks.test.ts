import { describe, expect, it } from 'vitest';
import { isCardNumber, isIban, luhnValid } from './numbers.ts';
import { isInternational, isPhoneNumber } from './phone.ts';
import { isEmail, piiScanner, PII_KINDS } from './pii.ts';
import { isJwt, secretsScanner, SECRET_KINDS } from './secrets.ts';
import { regexScanner, wordsScanner } from './patterns.ts';
import { redact } from './spans.ts';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const JWT = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: '1234567890', name: 'Ann' })}.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c`;
const pii = piiScanner(PII_KINDS, ['US', 'GB', 'FR', 'DE']);
const secrets = secretsScanner(SECRET_KINDS);
const categories = (text: string, scanner = pii) => scanner.scan(text).map((f) => f.category);
const redacted = (text: string, scanner = pii) => redact(text, scanner.scan(text));

describe('payment cards', () => {
  it('accepts Luhn-valid numbers of known issuers, compact or grouped', () => {
    for (const card of ['4111 1111 1111 1111', '4111-1111-1111-1111', '5500000000000004', '378282246310005', '6011111111111117', '3530111333300000']) {
      expect(isCardNumber(card), card).toBe(true);
    }
  });
  it('refuses a wrong check digit, an unknown issuer and a wrong length', () => {
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(isCardNumber('4111 1111 1111 1112')).toBe(false);
    expect(isCardNumber('1234567812345670')).toBe(false); // Luhn-valid, no issuer starts with 1
    expect(luhnValid('1234567812345670')).toBe(true);
    expect(isCardNumber('37828224631000')).toBe(false);
  });
  it('redacts a card in a sentence and leaves a near-miss alone', () => {
    expect(redacted('pay with 4111 1111 1111 1111 today')).toBe('pay with [CARD] today');
    expect(redacted('order 4111 1111 1111 1112 shipped')).toBe('order 4111 1111 1111 1112 shipped');
  });
});

describe('IBAN', () => {
  it('accepts mod-97-valid IBANs of the right length, compact or in groups of four', () => {
    for (const iban of ['DE89 3704 0044 0532 0130 00', 'DE89370400440532013000', 'GB82 WEST 1234 5698 7654 32', 'FR1420041010050500013M02606', 'NL91ABNA0417164300']) {
      expect(isIban(iban), iban).toBe(true);
    }
  });
  it('refuses a wrong checksum, a wrong length for the country and an unknown country', () => {
    expect(isIban('DE89 3704 0044 0532 0130 01')).toBe(false);
    expect(isIban('DE88370400440532013000')).toBe(false);
    expect(isIban('DE8937040044053201300')).toBe(false);
    expect(isIban('ZZ89370400440532013000')).toBe(false);
  });
  it('is found in text', () => {
    expect(redacted('Wire to DE89 3704 0044 0532 0130 00, thanks')).toBe('Wire to [IBAN], thanks');
  });
});

describe('phone numbers', () => {
  it('accepts E.164 numbers with a known country code and length', () => {
    expect(isInternational('14155552671')).toBe(true);
    expect(isInternational('442079460958')).toBe(true);
    expect(isInternational('33123456789')).toBe(true);
    expect(isInternational('4930123456')).toBe(true);
  });
  it('refuses wrong lengths and impossible NANP numbers', () => {
    expect(isInternational('1415555267')).toBe(false); // 9-digit NANP
    expect(isInternational('11155552671')).toBe(false); // area code starting with 1
    expect(isInternational('3312345678')).toBe(false); // FR needs 9
    expect(isInternational('999123456789')).toBe(false); // no such country code
  });
  it('finds international and national forms in text, and not dates, amounts or ids', () => {
    expect(redacted('call +1 415-555-2671 or +44 20 7946 0958')).toBe('call [PHONE] or [PHONE]');
    expect(redacted('office (415) 555-2671, Paris 01 23 45 67 89, London 020 7946 0958')).toBe('office [PHONE], Paris [PHONE], London [PHONE]');
    expect(redacted('due 2024-01-15, total 1234567890, ref 12.34.56')).toBe('due 2024-01-15, total 1234567890, ref 12.34.56');
    expect(isPhoneNumber('(115) 555-2671', ['US'])).toBe(false);
  });
});

describe('email and IP addresses', () => {
  it('validates emails, any script included', () => {
    expect(isEmail('ann.lee+tag@example.co.uk')).toBe(true);
    expect(isEmail('josé@exämple.de')).toBe(true);
    expect(isEmail('ann..lee@example.com')).toBe(false);
    expect(isEmail('ann@-example.com')).toBe(false);
    expect(isEmail('ann@example.c0m')).toBe(false);
    expect(redacted('write to josé@exämple.de or ann@example.com.')).toBe('write to [EMAIL] or [EMAIL].');
  });
  it('finds IPv4 and IPv6 but not versions or out-of-range octets', () => {
    expect(redacted('from 192.168.1.20 and 2001:db8::8a2e:370:7334')).toBe('from [IP] and [IP]');
    expect(categories('version 1.2.3.4.5, host 256.1.1.1, time 12:30:45')).toEqual([]);
  });
});

describe('secrets', () => {
  it('finds API keys, AWS access keys, private key blocks and JWTs', () => {
    const key = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy\n-----END RSA PRIVATE KEY-----';
    const text = `k=sk-proj-Ab3dEf9hIjK2mNoPq7RsTuVw aws AKIAIOSFODNN7EXAMPLE ${key} t=${JWT}`;
    expect(categories(text, secrets)).toEqual(['api_key', 'aws_key', 'private_key', 'jwt']);
    expect(redacted(text, secrets)).toBe('k=[API_KEY] aws [AWS_KEY] [PRIVATE_KEY] t=[JWT]');
  });
  it('refuses lookalikes: prose after sk-, a JWT whose header has no alg or is not JSON', () => {
    expect(categories('see sk-this-is-not-a-real-key-at-all', secrets)).toEqual([]);
    const noAlg = `${b64({ typ: 'JWT' })}.${b64({ sub: '1' })}.abc`;
    expect(isJwt(JWT)).toBe(true);
    expect(isJwt(noAlg)).toBe(false);
    expect(isJwt('eyJub3QganNvbg.eyJzdWIiOiIxIn0.abc')).toBe(false);
    expect(categories(`token ${noAlg}`, secrets)).toEqual([]);
  });
  it('holds a private key block from its BEGIN line until its END arrives', () => {
    expect(secrets.holdFrom!('key: -----BEGIN PRIVATE KEY-----\nMIIE')).toBe(5);
    expect(secrets.holdFrom!('-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----')).toBe(-1);
  });
});

describe('regular expressions and word lists', () => {
  it('match case- and accent-insensitively and redact the original span', () => {
    const words = wordsScanner(['Projet Émeraude', 'café'], 'codename');
    expect(redact('Le PROJET EMERAUDE et le Cafe.', words.scan('Le PROJET EMERAUDE et le Cafe.'))).toBe('Le [CODENAME] et le [CODENAME].');
    expect(words.scan('cafeteria')).toEqual([]);
  });
  it('handles mixed scripts and combining marks', () => {
    const words = wordsScanner(['Москва', 'naïve'], 'place');
    const text = 'МОСКВА and nai\u0308ve and 東京';
    expect(redact(text, words.scan(text))).toBe('[PLACE] and [PLACE] and 東京');
  });
  it('folds the pattern as the text: an accented pattern matches an unaccented upper-case text', () => {
    const regex = regexScanner(['rés[ea]au\\s+\\d+'], 'network');
    expect(regex.scan('RESEAU 42').map((f) => f.category)).toEqual(['network']);
    expect(() => regexScanner(['\\p{Lu}{3}'], 'x')).not.toThrow(); // an escape's braces are not folded into \p{lu}
  });
});
