/**
 * Payment cards (Luhn checksum and an issuer's prefix and length) and IBANs (ISO 13616: the
 * country's length and the mod-97 checksum).
 */

/** Luhn (ISO/IEC 7812-1) over a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let digit = digits.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** Issuer prefixes and lengths (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro). */
const ISSUERS: Array<[RegExp, number[]]> = [
  [/^4/, [13, 16, 19]],
  [/^(?:5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720))/, [16]],
  [/^3[47]/, [15]],
  [/^(?:6011|65|64[4-9])/, [16, 19]],
  [/^35(?:2[89]|[3-8])/, [16, 19]],
  [/^3(?:0[0-5]|[689])/, [14, 16, 19]],
  [/^62/, [16, 17, 18, 19]],
  [/^(?:5[06-8]|6[39])/, [12, 13, 14, 15, 16, 17, 18, 19]],
];

/** Card candidates: 12-19 digits, optionally in groups separated by one space or dash. */
export const CARD_CANDIDATE = /(?<![\d-])\d{4}(?:[ -]?\d{1,4}){2,4}(?![\d])/g;

export function isCardNumber(candidate: string): boolean {
  const digits = candidate.replace(/[ -]/g, '');
  if (digits.length < 12 || digits.length > 19) return false;
  const issuer = ISSUERS.find(([prefix]) => prefix.test(digits));
  return !!issuer && issuer[1].includes(digits.length) && luhnValid(digits);
}

/** IBAN lengths by country (SWIFT IBAN registry). */
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, CH: 21, CR: 22, CY: 28, CZ: 24,
  DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27, GB: 22, GE: 22, GI: 23, GL: 18, GR: 27,
  GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IS: 26, IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LI: 21, LT: 20, LU: 20,
  LV: 21, MC: 27, MD: 24, ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24, PL: 28, PS: 29, PT: 25,
  QA: 29, RO: 24, RS: 22, SA: 24, SE: 24, SI: 19, SK: 24, SM: 27, TN: 24, TR: 26, UA: 29, VG: 24, XK: 20,
};

/** IBAN candidates: country, check digits, then the BBAN, compact or in groups of four. */
export const IBAN_CANDIDATE = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{1,4}){3,8}(?![A-Za-z0-9])/g;

export function isIban(candidate: string): boolean {
  const iban = candidate.replace(/ /g, '');
  const expected = IBAN_LENGTHS[iban.slice(0, 2)];
  if (expected === undefined || iban.length !== expected) return false;
  return mod97(iban.slice(4) + iban.slice(0, 4)) === 1;
}

/** The number a rearranged IBAN stands for (letters as 10-35), modulo 97, in pieces (it is ~30 digits). */
function mod97(rearranged: string): number {
  let remainder = 0;
  for (const char of rearranged) {
    const code = char.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : char;
    for (const digit of value) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder;
}
