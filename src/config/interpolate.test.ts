import { describe, expect, it } from 'vitest';
import { interpolateString } from './interpolate.ts';

describe('interpolateString', () => {
  const env = { HOST: 'example.com', EMPTY: '', PORT: '8443' };

  it('substitutes a set variable', () => {
    expect(interpolateString('https://${HOST}:${PORT}/v1', env)).toMatchObject({ value: 'https://example.com:8443/v1' });
  });

  it('uses the default when the variable is unset or empty, like sh :-', () => {
    expect(interpolateString('${NOPE:-http://127.0.0.1:9999/v1}', env).value).toBe('http://127.0.0.1:9999/v1');
    expect(interpolateString('${EMPTY:-fallback}', env).value).toBe('fallback');
    expect(interpolateString('${HOST:-fallback}', env).value).toBe('example.com');
    expect(interpolateString('${NOPE:-}', env).value).toBe('');
  });

  it('keeps an empty but set variable without a default', () => {
    expect(interpolateString('a${EMPTY}b', env)).toEqual({ value: 'ab', changed: true, error: undefined });
  });

  it('names a missing variable', () => {
    expect(interpolateString('${OPENAI_API_KEY}', env).error).toMatch(/environment variable OPENAI_API_KEY, which is not set/);
  });

  it('rejects malformed references', () => {
    expect(interpolateString('${1BAD}', env).error).toMatch(/invalid variable reference \$\{1BAD\}/);
    expect(interpolateString('${HOST', env).error).toMatch(/unterminated/);
  });

  it('turns $${ into a literal ${ and leaves other dollars alone', () => {
    expect(interpolateString('$${HOST} costs $5', env).value).toBe('${HOST} costs $5');
    expect(interpolateString('$scrypt$ln=17', env)).toEqual({ value: '$scrypt$ln=17', changed: false });
  });
});
