import { describe, expect, it } from 'vitest';
import { storableJson, storableText } from './storable.ts';

describe('storableText', () => {
  it('returns the same string when every character is storable (emoji pairs included)', () => {
    const text = 'plain text, 中文, 😀 and \u{10FFFD}';
    expect(storableText(text)).toBe(text);
  });

  it('replaces NUL and lone surrogates, high or low, with U+FFFD', () => {
    expect(storableText('a\u0000b')).toBe('a\ufffdb');
    expect(storableText('hi \ud800')).toBe('hi \ufffd');
    expect(storableText('\udc00x\ud83d\ude00\ud83d')).toBe('\ufffdx😀\ufffd');
  });
});

describe('storableJson', () => {
  it('returns the same text when PostgreSQL JSONB can hold it', () => {
    const text = JSON.stringify({ a: 'ok 😀', b: 1e300, c: '\\u0000 as text', d: 12345678901234567890 }) + '{"e":"\\ud83d\\ude00"}';
    expect(storableJson(text)).toBe(text);
  });

  it('replaces lone surrogate and NUL escapes (keys too) and keeps a valid pair', () => {
    const text = JSON.stringify({ 'k\ud800': 'hi \ud800', n: 'x\u0000y', low: '\udc00', pair: '😀' }).replace('😀', '\\ud83d\\ude00');
    const stored = storableJson(text);
    expect(JSON.parse(stored)).toEqual({ 'k\ufffd': 'hi \ufffd', n: 'x\ufffdy', low: '\ufffd', pair: '😀' });
  });

  it('leaves an escaped backslash followed by u0000 alone (it is text, not an escape)', () => {
    const text = JSON.stringify({ a: '\\u0000 and \\ud800' });
    expect(storableJson(text)).toBe(text);
  });

  it('replaces raw lone surrogates and NUL characters', () => {
    expect(storableJson('{"a":"\ud800\u0000"}')).toBe('{"a":"\ufffd\ufffd"}');
  });

  it('stores a number outside NUMERIC as JavaScript reads it, and leaves digits inside strings alone', () => {
    const long = '9'.repeat(140_000);
    const text = `{"tiny":1e-20000,"huge":1e131072,"neg":-2.5E+99999,"long":${long},"s":"1e-20000 ${'7'.repeat(2000)}","ok":1e400}`;
    const stored = storableJson(text);
    expect(stored).toBe(`{"tiny":0,"huge":null,"neg":null,"long":null,"s":"1e-20000 ${'7'.repeat(2000)}","ok":1e400}`);
  });
});
