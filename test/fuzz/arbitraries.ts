/**
 * Generators of hostile input for the fuzz suite: JSON of any shape, valid bodies with fields
 * dropped, retyped or added, raw text that is not quite JSON, header values, query strings and
 * paths. Seeded with the values that broke gateways before (template syntax, huge numbers, far
 * dates, prototype keys, percent-escapes).
 */
import fc from 'fast-check';

/** Strings that have broken parsers, templates, dates and lookups somewhere. */
export const nastyStrings = fc.constantFrom(
  '', ' ', '\u0000', '\ud800', '${GATEWAY_MASTER_KEY}', '$${x}', '${secret:x}', '__proto__', 'constructor', 'toString',
  '9999-12-31', '0000-00-00', '2026-02-30', '-1', '1e309', 'NaN', 'Infinity', '0x10', 'null', 'true', '[]', '{}',
  '../../etc/passwd', '%00', '%zz', '<script>alert(1)</script>', "' OR 1=1 --", 'a'.repeat(5000), '😀'.repeat(50),
);

/**
 * Any UTF-16 text a JSON string can carry: code points from every plane (lone surrogates
 * included: JSON escapes them as `\ud800`), NUL, and the halves of a pair apart.
 */
export const anyUnicode = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
    fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d', '\ude00', '😀', '\u{10FFFF}', '\\', '"'),
  ),
  maxLength: 24,
});

const scalar = fc.oneof(
  fc.string({ maxLength: 40 }),
  nastyStrings,
  fc.integer(),
  fc.constantFrom(0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, -0),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
);

/** Any JSON value, small. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), nastyStrings), tie('value'), { maxKeys: 4 }),
})).value;

/**
 * `base` with some of its fields dropped, some replaced by any JSON value, and maybe unknown
 * ones added: mostly almost-valid bodies, which reach deeper than random ones.
 */
export function mutated(base: Record<string, unknown>, extraFields: string[] = []): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.keys(base);
  const names = fc.oneof(fc.constantFrom(...fields, ...extraFields), fc.string({ maxLength: 10 }));
  return fc
    .tuple(fc.subarray(fields, { maxLength: 2 }), fc.dictionary(names, anyJson, { maxKeys: 3 }))
    .map(([dropped, replaced]) => {
      const out: Record<string, unknown> = {};
      for (const field of fields) if (!dropped.includes(field)) out[field] = base[field];
      for (const [field, value] of Object.entries(replaced)) Object.defineProperty(out, field, { value, enumerable: true, writable: true });
      return out;
    });
}

/** A request body as text: mostly JSON of a body from `json`, sometimes broken or not JSON at all. */
export function bodyText(json: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: json.map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 1, arbitrary: json.chain((value) => { const text = JSON.stringify(value) ?? ''; return fc.nat(text.length).map((n) => text.slice(0, n)); }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
    { weight: 1, arbitrary: fc.nat({ max: 3000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)) },
  );
}

/** Header values a client might send (printable ASCII, as fetch allows). */
export const headerValue = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
  fc.constantFrom('', 'application/json', 'text/plain', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x', 'gzip', 'identity', '*/*', 'text/event-stream'),
);

/** A query string over `names` (and unknown ones), values from anywhere. */
export function queryString(names: string[]): fc.Arbitrary<string> {
  const value = fc.oneof(fc.string({ maxLength: 20 }), nastyStrings, fc.integer().map(String), fc.constantFrom('2026-11-25', '1970-01-01', '2026-11-25T10:00:00Z', '-5', '0', '1000000'));
  return fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 8 })), value), { maxLength: 5 })
    .map((pairs) => new URLSearchParams(pairs).toString());
}

/** A path segment, percent-escapes and dot segments included. */
export const pathSegment = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9._~-]{0,12}$/),
  fc.constantFrom('%zz', '%', '%00', '%2F', '..', '.', '%2e%2e', '%C0%AF', ':id', '*', '%E2%82', 'a%20b'),
);
