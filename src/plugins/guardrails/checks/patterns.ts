/**
 * Regular expressions and word lists, both case- and accent-insensitive: they run on the folded
 * text (checks/fold.ts) and report spans of the original. A word matches whole (not inside a
 * longer word) in any script; a phrase's spaces match any run of whitespace.
 */
import type { Finding, Scanner } from '../types.ts';
import { fold, foldWord, originalSpan } from './fold.ts';

/** Compiles once per snapshot; throws SyntaxError naming the pattern (config checks report it). */
export function regexScanner(patterns: readonly string[], category: string): Scanner {
  const compiled = patterns.map((source) => new RegExp(foldPattern(source), 'gu'));
  return { kind: 'scan', scan: (text) => foldedMatches(text, compiled, category) };
}

/** Escapes each word; matches it whole, with letters and digits of any script as word characters. */
export function wordsScanner(words: readonly string[], category: string): Scanner {
  const alternatives = [...new Set(words.map(foldWord).filter(Boolean))]
    .sort((a, b) => b.length - a.length)
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'));
  if (!alternatives.length) return { kind: 'scan', scan: () => [] };
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'gu');
  return { kind: 'scan', scan: (text) => foldedMatches(text, [pattern], category) };
}

/**
 * A pattern as written, folded the same way as the text it runs on: `Café` in a pattern must
 * match `CAFE` in a text. Escapes and classes are left alone (`\D` must stay upper-case).
 */
function foldPattern(source: string): string {
  return source.replace(/\\[pPu]\{[^}]*\}|\\.|[^\\]+/g, (part) => (part.startsWith('\\') ? part : foldWord(part)));
}

function foldedMatches(text: string, patterns: readonly RegExp[], category: string): Finding[] {
  const folded = fold(text);
  const findings: Finding[] = [];
  for (const pattern of patterns) {
    pattern.lastIndex = 0;
    for (const match of folded.text.matchAll(pattern)) {
      if (match[0].length === 0) continue; // an empty match redacts nothing and would loop
      const [start, end] = originalSpan(folded, match.index, match.index + match[0].length);
      findings.push({ start, end, category });
    }
  }
  return findings;
}

/** Checks that each pattern compiles (as the scanner will compile it); the first problem, or null. */
export function patternProblem(source: string): string | null {
  try {
    new RegExp(foldPattern(source), 'gu');
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
