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
/** A character no store holds as given: NUL, or a UTF-16 surrogate (paired or not; checked after). */
const SUSPECT_CHAR = /[\u0000\ud800-\udfff]/;
/** NUL, a high surrogate without its low one, or a low one without its high one (code units: no `u` flag). */
const UNSTORABLE_CHAR = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/**
 * In JSON text: an escaped backslash (skipped, so `\\u0000` stays the six characters it is), or a
 * `\u` escape of NUL or of a surrogate, a high one with the low one that may follow it.
 */
const SUSPECT_ESCAPE = /\\\\|\\u0000|\\u[dD][89abAB][0-9a-fA-F]{2}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|\\u[dD][c-fC-F][0-9a-fA-F]{2}/g;
/** A quick look for a number that may be out of NUMERIC's range: a long exponent or a long run of digits. */
const SUSPECT_NUMBER = /\d[eE][+-]?\d{4}|\d{1000}/;
/** In JSON text: a whole string token (skipped: digits inside strings are text) or a number token. */
const JSON_NUMBER_OR_STRING = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
/** Beyond these a number may overflow PostgreSQL's NUMERIC (131072 digits before the point, 16383 after). */
const MAX_NUMBER_CHARS = 1000;
const MAX_EXPONENT = 1000;

/** `text` with NUL and lone surrogates replaced by U+FFFD. */
export function storableText(text: string): string {
  if (!SUSPECT_CHAR.test(text)) return text;
  const out = text.replace(UNSTORABLE_CHAR, REPLACEMENT);
  return out === text ? text : out;
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
  if (SUSPECT_NUMBER.test(out)) {
    const numbers = out.replace(JSON_NUMBER_OR_STRING, (token) => (token.startsWith('"') || fitsNumeric(token) ? token : String(JSON.stringify(Number(token)))));
    if (numbers !== out) out = numbers;
  }
  return out === text ? text : out;
}

function fitsNumeric(token: string): boolean {
  if (token.length > MAX_NUMBER_CHARS) return false;
  const e = token.search(/[eE]/);
  return e < 0 || Math.abs(Number(token.slice(e + 1))) <= MAX_EXPONENT;
}
