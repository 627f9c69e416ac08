/** Span helpers shared by the scanners and the redaction. */
import type { Finding } from '../types.ts';

/** Keeps the first-listed of overlapping findings; the result sorted by start. */
export function overlapFree(findings: readonly Finding[]): Finding[] {
  const kept: Finding[] = [];
  for (const finding of findings) {
    if (!kept.some((k) => finding.start < k.end && k.start < finding.end)) kept.push(finding);
  }
  return kept.sort((a, b) => a.start - b.start);
}

/** `[EMAIL]` for category `email`; `[API_KEY]` for `api_key`. */
export const placeholder = (category: string) => `[${category.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}]`;

/** `text` with each finding replaced by its placeholder (of overlapping ones, the earliest). */
export function redact(text: string, findings: readonly Finding[]): string {
  let out = '';
  let at = 0;
  for (const finding of [...findings].sort((a, b) => a.start - b.start || b.end - a.end)) {
    if (finding.start < at) continue;
    out += text.slice(at, finding.start) + placeholder(finding.category);
    at = finding.end;
  }
  return out + text.slice(at);
}
