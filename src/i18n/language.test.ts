import { describe, expect, it } from 'vitest';
import { fromAcceptLanguage, languageOf, supportedLanguage } from './language.ts';

describe('languages', () => {
  it('maps a BCP 47 tag to a supported language by its primary subtag', () => {
    expect(supportedLanguage('zh-CN')).toBe('zh');
    expect(supportedLanguage('zh-Hant-TW')).toBe('zh');
    expect(supportedLanguage('EN-us')).toBe('en');
    expect(supportedLanguage('fr')).toBeUndefined();
    expect(languageOf('fr')).toBe('en');
    expect(languageOf(undefined)).toBe('en');
  });

  it('takes the most wanted supported language of Accept-Language', () => {
    expect(fromAcceptLanguage('fr-FR, zh-CN;q=0.9, en;q=0.8')).toBe('zh');
    expect(fromAcceptLanguage('en;q=0.5, zh;q=0.4')).toBe('en');
    expect(fromAcceptLanguage('zh;q=0, en;q=0.1')).toBe('en');
    expect(fromAcceptLanguage('de, fr')).toBe('en');
    expect(fromAcceptLanguage(null)).toBe('en');
  });
});
