/**
 * Phone numbers, validated rather than matched by shape: international (E.164, `+` or `00`,
 * with the country's national-number length) and national forms of the regions listed (North
 * America's NANP rules; the trunk-`0` forms of GB, FR, DE and others). Separators are spaces,
 * dots, dashes and parentheses around an area code. A small table, not libphonenumber: it knows
 * lengths, not every numbering plan, so it errs on matching a number-shaped string that is
 * dialable in form.
 */

/** Country calling code → [shortest, longest] national number length (ITU-T E.164 plans). */
const NATIONAL_LENGTHS: Record<string, [number, number]> = {
  '1': [10, 10], '7': [10, 10], '20': [9, 10], '27': [9, 9], '30': [10, 10], '31': [9, 9], '32': [8, 9], '33': [9, 9],
  '34': [9, 9], '36': [8, 9], '39': [6, 11], '40': [9, 9], '41': [9, 9], '43': [7, 13], '44': [9, 10], '45': [8, 8],
  '46': [7, 9], '47': [8, 8], '48': [9, 9], '49': [6, 13], '51': [8, 9], '52': [10, 10], '54': [10, 11], '55': [10, 11],
  '56': [9, 9], '57': [10, 10], '60': [8, 10], '61': [9, 9], '62': [8, 12], '63': [10, 10], '64': [8, 10], '65': [8, 8],
  '66': [8, 9], '81': [9, 10], '82': [8, 10], '84': [9, 10], '86': [10, 11], '90': [10, 10], '91': [10, 10], '92': [9, 10],
  '351': [9, 9], '352': [6, 11], '353': [7, 9], '358': [6, 10], '380': [9, 9], '420': [9, 9], '852': [8, 8], '966': [9, 9],
  '971': [8, 9], '972': [8, 9],
};

/** National forms (with the trunk prefix) by region: digits only, separators removed. */
const NATIONAL: Record<string, (digits: string) => boolean> = {
  // NANP: a 3-digit area code, a 3-digit exchange, 4 digits; area code and exchange start with 2-9, no N11 area code; an optional leading 1.
  US: (d) => /^1?[2-9](?!11)\d{2}[2-9]\d{6}$/.test(d),
  CA: (d) => NATIONAL.US!(d),
  GB: (d) => /^0[1237-9]\d{8,9}$/.test(d),
  FR: (d) => /^0[1-9]\d{8}$/.test(d),
  DE: (d) => /^0[1-9]\d{5,11}$/.test(d),
  ES: (d) => /^[6-9]\d{8}$/.test(d),
  IT: (d) => /^(?:0\d{5,10}|3\d{8,9})$/.test(d),
  NL: (d) => /^0[1-9]\d{8}$/.test(d),
};

export const PHONE_REGIONS = Object.keys(NATIONAL);

/** Candidates: an optional `+`/`00`, then digits with single separators, 7 digits at least. */
export const PHONE_CANDIDATE = /(?<![\w+])(?:\+|00)?(?:\(\d{1,5}\)[ .-]?|\d)(?:[ .-]?(?:\(\d{1,5}\)|\d)){6,18}(?!\w)/g;

/** Is `candidate` (as matched by PHONE_CANDIDATE) a valid number, international or national in one of `regions`? */
export function isPhoneNumber(candidate: string, regions: readonly string[]): boolean {
  const digits = candidate.replace(/\D/g, '');
  if (candidate.startsWith('+') || candidate.startsWith('00')) return isInternational(candidate.startsWith('00') ? digits.slice(2) : digits);
  // A national form needs separators or an area code in parentheses: a bare run of digits is an id or an amount.
  if (!/[ .()-]/.test(candidate)) return false;
  return regions.some((region) => NATIONAL[region]?.(digits) ?? false);
}

/** E.164: at most 15 digits; the country code known and the national number of its length. */
export function isInternational(digits: string): boolean {
  if (digits.length < 8 || digits.length > 15 || digits.startsWith('0')) return false;
  for (const size of [1, 2, 3]) {
    const lengths = NATIONAL_LENGTHS[digits.slice(0, size)];
    if (!lengths) continue;
    const national = digits.length - size;
    if (national >= lengths[0] && national <= lengths[1]) {
      // NANP numbers obey the same rules abroad as at home.
      return size === 1 && digits[0] === '1' ? NATIONAL.US!(digits.slice(1)) : true;
    }
  }
  return false;
}
