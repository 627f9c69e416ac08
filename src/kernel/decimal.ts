/**
 * Exact decimal arithmetic for money. Costs are summed over millions of calls, where binary
 * floats drift (0.1 + 0.2 !== 0.3), so every amount is a decimal string and the maths runs on
 * BigInt integers scaled by 10^12 (a pico-yuan). Prices are yuan per thousand tokens.
 */

/** Decimal places kept by `costOf` and `addDecimal`. */
export const COST_SCALE = 12;
const DECIMAL_RE = /^([+-])?(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/**
 * Parses a decimal string or number into an integer scaled by 10^`scale`, rounding half away
 * from zero past that many places. Numbers go through `String()` (shortest round-trip form),
 * so `0.1` is read as the decimal 0.1, not its binary approximation.
 */
export function toScaled(value: number | string, scale = COST_SCALE): bigint {
  const text = typeof value === 'number' ? numberText(value) : value.trim();
  const m = DECIMAL_RE.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new RangeError(`not a decimal: ${JSON.stringify(value)}`);
  const negative = m[1] === '-';
  let digits = (m[2] ?? '') + (m[3] ?? '');
  // The decimal point sits after `point` digits; an exponent moves it.
  const point = (m[2] ?? '').length + Number(m[4] ?? 0);
  const wanted = point + scale; // digits to keep before rounding
  if (wanted <= 0) {
    const roundUp = wanted === 0 && digits.length > 0 && digits[0]! >= '5';
    return signed(roundUp ? 1n : 0n, negative);
  }
  if (digits.length <= wanted) {
    digits = digits.padEnd(wanted, '0');
    return signed(BigInt(digits), negative);
  }
  let kept = BigInt(digits.slice(0, wanted));
  if (digits[wanted]! >= '5') kept += 1n;
  return signed(kept, negative);
}

/** Renders an integer scaled by 10^`scale` as a plain decimal string without trailing zeros. */
export function fromScaled(value: bigint, scale = COST_SCALE): string {
  const negative = value < 0n;
  const abs = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const whole = abs.slice(0, abs.length - scale);
  const frac = abs.slice(abs.length - scale).replace(/0+$/, '');
  const text = frac ? `${whole}.${frac}` : whole;
  return negative && text !== '0' ? `-${text}` : text;
}

/**
 * The exact cost of `tokens` at `pricePerThousand` yuan per thousand tokens, as a decimal
 * string with at most 12 places (e.g. `costOf(1234, 0.002)` → `"0.002468"`).
 */
export function costOf(tokens: number, pricePerThousand: number | string): string {
  if (!Number.isSafeInteger(tokens) || tokens < 0) throw new RangeError(`invalid token count: ${tokens}`);
  // cost × 10^12 = tokens × (price × 10^15) / 10^6: exact for prices with up to 9 decimal
  // places, correctly rounded at the 12th place beyond that.
  return fromScaled(roundDiv(scaledPrice(pricePerThousand) * BigInt(tokens), 1_000_000n));
}

/** Prices come from the config, a handful of values billed on every call: each is parsed once. */
const scaledPrices = new Map<number | string, bigint>();

function scaledPrice(price: number | string): bigint {
  let scaled = scaledPrices.get(price);
  if (scaled === undefined) {
    scaled = toScaled(price, COST_SCALE + 3);
    if (scaledPrices.size >= 1024) scaledPrices.clear(); // prices edited many times: stay bounded
    scaledPrices.set(price, scaled);
  }
  return scaled;
}

/** Exact sum of two decimal strings (or numbers), e.g. `addDecimal('0.1', '0.2')` → `"0.3"`. */
export function addDecimal(a: string | number, b: string | number): string {
  return fromScaled(toScaled(a) + toScaled(b));
}

/** Exact sum of many decimal amounts. */
export function sumDecimals(values: Iterable<string | number>): string {
  let total = 0n;
  for (const v of values) total += toScaled(v);
  return fromScaled(total);
}

/** A decimal amount in nano units (10^-9), rounded half away from zero: SQLite's summable copy. */
export function toNano(value: string | number): bigint {
  return toScaled(value, 9);
}

/** Converts a decimal string to a JSON number rounded to `places` (6 for statistics). */
export function decimalToNumber(value: string | number, places = 6): number {
  return Number(fromScaled(toScaled(value, places), places));
}

function roundDiv(n: bigint, d: bigint): bigint {
  const q = n / d;
  const r = n % d;
  if (r === 0n) return q;
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice >= d) return n < 0n ? q - 1n : q + 1n;
  return q;
}

function signed(v: bigint, negative: boolean): bigint {
  return negative ? -v : v;
}

function numberText(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${n}`);
  return String(n);
}
