/**
 * The languages the gateway writes its emails and OAuth pages in, and how one is chosen: an
 * account's `language` setting (a BCP 47 tag; its primary subtag decides), or for pages shown
 * before anyone has signed in, the browser's Accept-Language.
 */
export const LANGUAGES = ['en', 'zh'] as const;
export type Language = (typeof LANGUAGES)[number];

const DEFAULT: Language = 'en';

/** The supported language of a BCP 47 tag (`zh-CN` → `zh`), or undefined when there is none. */
export function supportedLanguage(tag: string | null | undefined): Language | undefined {
  const primary = tag?.trim().split(/[-_]/)[0]?.toLowerCase();
  return LANGUAGES.find((language) => language === primary);
}

/** The language to write in for an account's setting (English when it names none we have). */
export const languageOf = (tag: string | null | undefined): Language => supportedLanguage(tag) ?? DEFAULT;

/** The best supported language of an Accept-Language header (RFC 9110 §12.5.4 weights). */
export function fromAcceptLanguage(header: string | null | undefined): Language {
  if (!header) return DEFAULT;
  let best: { language: Language; weight: number } | undefined;
  for (const range of header.split(',')) {
    const [tag, ...params] = range.split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    const language = supportedLanguage(tag);
    if (language && Number.isFinite(weight) && weight > 0 && (!best || weight > best.weight)) best = { language, weight };
  }
  return best?.language ?? DEFAULT;
}
