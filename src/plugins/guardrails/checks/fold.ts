/**
 * Case- and accent-insensitive text: NFD, combining marks removed, lower-cased (so `Éric`,
 * `ERIC` and `eric` read alike), with each folded character's offset in the original text, so
 * that a match found in the folded text redacts the right span of the original.
 */

const MARK = /\p{M}/u;

export interface Folded {
  text: string;
  /** `offsets[i]` = index in the original of the character that produced folded character i; one extra entry = original length. */
  offsets: number[];
}

/** Folds one string for comparison (no offsets): what word lists are stored as. */
export const foldWord = (word: string) => fold(word).text;

export function fold(original: string): Folded {
  let text = '';
  const offsets: number[] = [];
  // Per code point: surrogate pairs stay whole; decomposition and case mapping may grow it.
  for (let i = 0; i < original.length; ) {
    const codePoint = original.codePointAt(i)!;
    const width = codePoint > 0xffff ? 2 : 1;
    const char = original.slice(i, i + width);
    const folded = /[\p{M}\p{Lu}\u00c0-\u024f]/u.test(char) || codePoint > 0x7f ? foldChar(char) : char.toLowerCase();
    for (const piece of folded) {
      text += piece;
      for (let k = 0; k < piece.length; k++) offsets.push(i);
    }
    i += width;
  }
  offsets.push(original.length);
  return { text, offsets };
}

function foldChar(char: string): string {
  let out = '';
  for (const piece of char.normalize('NFD').toLowerCase().normalize('NFD')) if (!MARK.test(piece)) out += piece;
  return out;
}

/** The original span of folded span [start, end). */
export function originalSpan(folded: Folded, start: number, end: number): [number, number] {
  const { offsets } = folded;
  const last = offsets[end - 1]!;
  // The end is where the next original character starts (one may have folded into several).
  let k = end;
  while (k < offsets.length - 1 && offsets[k] === last) k++;
  return [offsets[start]!, offsets[k]!];
}
