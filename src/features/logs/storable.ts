/**
 * What a log row may hold, on both stores. A call the gateway served must get its row (the billing
 * ledger), yet clients control much of it: a prompt with a lone surrogate (`"\ud800"`, valid JSON)
 * or NUL, a model name, a body number like `1e-20000`. PostgreSQL refuses NUL in text, lone
 * surrogate and NUL escapes in JSONB, and numbers outside NUMERIC's range; SQLite keeps a lone
 * surrogate as invalid UTF-8 and reads it back as three U+FFFD. So the stored copy replaces what
 * a store cannot hold (U+FFFD for a character, the value JavaScript reads for a number), the same
 * way on both stores, and the row says so (`sanitized`).
 *
 * Each function returns its argument itself when nothing needed replacing (callers compare by
 * identity), after a scan that costs little next to writing the row.
 */

const REPLACEMENT = '\ufffd';
/**
 * ES2024's native checks (Node 20 has them; the TypeScript lib here is ES2023): far faster than a
 * regular expression over a long body full of emoji, which are surrogate pairs.
 */
type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string };
/**
 * In JSON text: an escaped backslash (skipped, so `\\u0000` stays the six characters it is), or a
 * `\u` escape of NUL or of a surrogate, a high one with the low one that may follow it.
 */
const SUSPECT_ESCAPE = /\\\\|\\u0000|\\u[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|\\u[dD][c-fC-F][0-9a-fA-F]{2}/g;
/**
 * A quick look for a number that may be out of NUMERIC's range: an exponent of 4 digits or more,
 * or (only a text that long can hold one) a run of `LONG_DIGITS` digits.
 */
const SUSPECT_EXPONENT = /\d[eE][+-]?\d{4}/;
const LONG_DIGITS = 16_000;
const SUSPECT_DIGITS = new RegExp(`\\d{${LONG_DIGITS}}`);
/** In JSON text: a whole string token (skipped: digits inside strings are text) or a number token. */
const JSON_NUMBER_OR_STRING = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
/** Beyond these a number may overflow PostgreSQL's NUMERIC (131072 digits before the point, 16383 after). */
const MAX_EXPONENT = 1000;

/** `text` with NUL and lone surrogates replaced by U+FFFD. */
export function storableText(text: string): string {
  // A caller's non-string (a bad id) goes on to the driver, which refuses it with its own message.
  if (typeof text !== 'string') return text;
  let out = (text as WellFormedString).isWellFormed() ? text : (text as WellFormedString).toWellFormed();
  if (out.includes('\u0000')) out = out.replaceAll('\u0000', REPLACEMENT);
  return out;
}

/**
 * JSON text as both stores hold it: its characters as `storableText` makes them, `\u0000` and
 * lone surrogate escapes as `\ufffd`, and a number outside NUMERIC's range as JavaScript reads it
 * (`1e-20000` is 0, `1e400` is null, as the gateway itself forwarded it).
 */
export function storableJson(text: string): string {
  let out = storableText(text);
  if (out.includes('\\u')) {
    const escaped = out.replace(SUSPECT_ESCAPE, (match) => (match === '\\\\' || match.length === 12 ? match : '\\ufffd'));
    if (escaped !== out) out = escaped;
  }
  if (SUSPECT_EXPONENT.test(out) || (out.length >= LONG_DIGITS && SUSPECT_DIGITS.test(out))) {
    const numbers = out.replace(JSON_NUMBER_OR_STRING, (token) => (token.startsWith('"') || fitsNumeric(token) ? token : String(JSON.stringify(Number(token)))));
    if (numbers !== out) out = numbers;
  }
  return out === text ? text : out;
}

function fitsNumeric(token: string): boolean {
  if (token.length >= LONG_DIGITS) return false;
  const e = token.search(/[eE]/);
  return e < 0 || Math.abs(Number(token.slice(e + 1))) <= MAX_EXPONENT;
}
