/**
 * Renders an edited YAML document so that untouched parts keep their exact original text.
 *
 * `Document.toString()` keeps comments and key order but re-formats everything (indentation,
 * spacing before comments, quoting of some scalars). Operators care about their file, so instead
 * the original text is kept and only the items that changed are re-rendered and spliced in: items
 * of the top-level lists (providers, models, groups, keys, accounts) matched by `id`. Anything
 * else (a new top-level section, a list that became empty...) falls back to `toString()` of the
 * whole document, which still keeps comments and order. The spliced text is re-parsed and
 * compared with the edited document; on any difference the fallback is used.
 *
 * New text takes the file's line ending (`\r\n` when its first line ends so), and a comment at
 * the end of a line stays on that line: items go below it, never between a value and its comment.
 */
import { Document, isMap, isScalar, isSeq, parseDocument, type Node, type YAMLMap, type YAMLSeq } from 'yaml';

const STRINGIFY = { lineWidth: 0 } as const;

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** The text of `edited` (a document parsed from `original` and then changed through the Document API). */
export function renderEdited(original: string, edited: Document): string {
  return spliceEdited(original, edited) ?? withLineBreaks(edited.toString(STRINGIFY), lineBreakOf(original));
}

/** The line ending of `text`: that of its first line (`\n` for a text of one line). */
export function lineBreakOf(text: string): '\n' | '\r\n' {
  const nl = text.indexOf('\n');
  return nl > 0 && text[nl - 1] === '\r' ? '\r\n' : '\n';
}

/** `text` (rendered by the yaml package, so `\n` only) with `eol` line endings. */
function withLineBreaks(text: string, eol: '\n' | '\r\n'): string {
  return eol === '\n' ? text : text.replace(/\r?\n/g, eol);
}

/**
 * `original` with only the changed items re-rendered, verified by parsing it back; null when the
 * change is not one the splice handles or the check fails (the caller decides what to do then).
 */
export function spliceEdited(original: string, edited: Document): string | null {
  try {
    const spliced = splice(original, edited);
    if (spliced === null) return null;
    const check = parseDocument(spliced);
    if (check.errors.length) return null;
    return JSON.stringify(check.toJS()) === JSON.stringify(edited.toJS()) ? spliced : null;
  } catch {
    return null;
  }
}

function splice(original: string, edited: Document): string | null {
  const pristine = parseDocument(original);
  if (!isMap(pristine.contents) || !isMap(edited.contents)) return null;
  const oldPairs = new Map(pristine.contents.items.map((pair) => [keyOf(pair.key), pair]));
  const newKeys = new Set(edited.contents.items.map((pair) => keyOf(pair.key)));
  for (const key of oldPairs.keys()) if (!newKeys.has(key)) return null;
  const edits: Edit[] = [];
  for (const pair of edited.contents.items) {
    const old = oldPairs.get(keyOf(pair.key));
    if (!old) return null;
    if (render(old.value as Node) === render(pair.value as Node)) continue;
    const listEdits = spliceList(original, old.value, pair.value) ?? spliceEmptiness(original, old, pair.value);
    if (!listEdits) return null;
    edits.push(...listEdits);
  }
  // Edits are rendered with `\n`; they never copy text from the original.
  const eol = lineBreakOf(original);
  let text = original;
  for (const edit of edits.sort((a, b) => b.start - a.start || b.end - a.end)) {
    text = text.slice(0, edit.start) + withLineBreaks(edit.text, eol) + text.slice(edit.end);
  }
  return text;
}

function spliceList(original: string, oldValue: unknown, newValue: unknown): Edit[] | null {
  if (!isSeq(oldValue) || !isSeq(newValue) || oldValue.flow || !oldValue.items.length || !newValue.items.length) return null;
  const oldItems = itemsById(oldValue);
  const newItems = itemsById(newValue);
  if (!oldItems || !newItems) return null;
  const edits: Edit[] = [];
  for (const [id, node] of oldItems) {
    const [start, end] = node.range!;
    const replacement = newItems.get(id);
    if (!replacement) edits.push({ start: lineStart(original, start), end: wholeLines(original, end), text: '' });
    else if (render(node) !== render(replacement)) {
      edits.push(...(spliceMap(original, node, replacement) ?? [replaceItem(original, start, end, replacement)]));
    }
  }
  const last = oldValue.items.at(-1) as YAMLMap;
  const contentCol = last.range![0] - lineStart(original, last.range![0]);
  const dashCol = original.lastIndexOf('-', last.range![0]) - lineStart(original, last.range![0]);
  if (dashCol < 0) return null;
  // After the last item's whole line: a flow item (`- { id: a }  # note`) ends before its comment.
  const at = wholeLines(original, last.range![1]);
  let insertion = original[at - 1] === '\n' ? '' : '\n';
  for (const [id, node] of newItems) {
    if (oldItems.has(id)) continue;
    insertion += `${' '.repeat(dashCol)}-${' '.repeat(contentCol - dashCol - 1)}${itemText(node, contentCol, false)}`;
  }
  if (insertion.trim()) edits.push({ start: at, end: at, text: insertion });
  return edits;
}

/**
 * The edit re-rendering a whole item. A flow item ends before the rest of its line (a comment):
 * its new text ends there too, without the comment, which the original text still holds.
 */
function replaceItem(original: string, start: number, end: number, replacement: YAMLMap): Edit {
  const text = itemText(replacement, start - lineStart(original, start), true);
  if (original[end - 1] === '\n') return { start, end, text };
  const bare = replacement.clone() as YAMLMap;
  bare.comment = undefined;
  return { start, end, text: itemText(bare, start - lineStart(original, start), true).replace(/\n$/, '') };
}

/**
 * Field-level edits inside one block map: changed scalars replace only their value text, new
 * fields are appended as lines at the map's end, removed fields lose their lines, nested maps
 * recurse. Null when the change is not of that kind (the caller re-renders the whole item).
 */
function spliceMap(original: string, oldMap: YAMLMap, newMap: YAMLMap): Edit[] | null {
  if (oldMap.flow || !oldMap.range || !oldMap.items.length) return null;
  const oldPairs = new Map(oldMap.items.map((pair) => [keyOf(pair.key), pair]));
  const newPairs = new Map(newMap.items.map((pair) => [keyOf(pair.key), pair]));
  const common = [...oldPairs.keys()].filter((k) => newPairs.has(k));
  if (common.join('\0') !== [...newPairs.keys()].filter((k) => oldPairs.has(k)).join('\0')) return null;
  const firstKey = oldMap.items[0]!.key as Node;
  const col = firstKey.range![0] - lineStart(original, firstKey.range![0]);
  const edits: Edit[] = [];
  for (const [key, pair] of oldPairs) {
    const next = newPairs.get(key);
    const oldValue = pair.value as Node | null;
    if (!next) {
      if (!isScalar(pair.key) || !pair.key.range || !oldValue?.range) return null;
      edits.push({ start: lineStart(original, pair.key.range[0]), end: lineEnd(original, oldValue.range[2] - 1), text: '' });
      continue;
    }
    const newValue = next.value as Node | null;
    if (render(oldValue) === render(newValue)) continue;
    if (isScalar(oldValue) && isScalar(newValue) && oldValue.range) {
      const bare = newValue.clone() as typeof newValue;
      bare.comment = undefined;
      bare.commentBefore = undefined;
      const text = render(bare).replace(/\n$/, '');
      if (text.includes('\n')) return null;
      edits.push({ start: oldValue.range[0], end: oldValue.range[1], text });
    } else if (isMap(oldValue) && isMap(newValue)) {
      const nested = newValue.items.length ? spliceMap(original, oldValue, newValue) : emptiedMap(original, pair.key as Node, oldValue);
      if (!nested) return null;
      edits.push(...nested);
    } else return null;
  }
  let insertion = '';
  for (const [key, pair] of newPairs) {
    if (oldPairs.has(key)) continue;
    const single = new Document({}).createNode({}) as YAMLMap;
    single.items.push(pair);
    insertion += itemText(single, col, false).replace(/^/, ' '.repeat(col));
  }
  if (insertion) {
    const end = oldMap.range[1];
    insertion = (original[end - 1] === '\n' ? '' : '\n') + insertion;
    edits.push({ start: end, end, text: insertion });
  }
  return edits;
}

/**
 * A nested map whose every field was removed (`permissions: {quota_period: null}`): it becomes
 * `{}` after the key's colon (a comment on the key's line stays), and its lines go.
 */
function emptiedMap(original: string, key: Node, value: YAMLMap): Edit[] | null {
  if (!key.range || !value.range) return null;
  if (value.flow) return [{ start: value.range[0], end: value.range[1], text: '{}' }];
  const colon = original.indexOf(':', key.range[1]);
  if (colon < 0 || colon >= value.range[0]) return null;
  return [
    { start: colon + 1, end: colon + 1, text: ' {}' },
    { start: lineStart(original, value.range[0]), end: wholeLines(original, value.range[1]), text: '' },
  ];
}

/**
 * A list that becomes empty (`keys: []`) or an empty flow list that gets its first items: rewrite
 * only the list value, after the key's colon.
 */
function spliceEmptiness(original: string, old: { key: unknown; value: unknown }, newValue: unknown): Edit[] | null {
  if (!isSeq(old.value) || !isSeq(newValue) || !isScalar(old.key) || !old.key.range) return null;
  const colon = original.indexOf(':', old.key.range[1]);
  const keyCol = old.key.range[0] - lineStart(original, old.key.range[0]);
  if (colon < 0 || keyCol !== 0) return null;
  if (!newValue.items.length && !old.value.flow && old.value.items.length) {
    const first = old.value.items[0] as Node;
    const last = old.value.items.at(-1) as Node;
    return [
      { start: lineStart(original, first.range![0]), end: last.range![1], text: '' },
      { start: colon + 1, end: colon + 1, text: ' []' },
    ];
  }
  if (old.value.flow && !old.value.items.length && newValue.items.length) {
    const items = itemsById(newValue);
    if (!items) return null;
    const text = [...items.values()].map((node) => `  - ${itemText(node, 4, false)}`).join('');
    // `[]` goes; a comment after it stays on the key's line, the items go below that line.
    const [, valueEnd] = old.value.range!;
    const at = wholeLines(original, valueEnd);
    return [
      { start: colon + 1, end: valueEnd, text: '' },
      { start: at, end: at, text: (original[at - 1] === '\n' ? '' : '\n') + text },
    ];
  }
  return null;
}

/** An item rendered as block YAML whose first line continues after `- ` and the rest indented to `col`. */
function itemText(node: YAMLMap, col: number, keepLeadingComment: boolean): string {
  const clone = node.clone() as YAMLMap;
  // The comment above an item sits before its `- ` marker, outside the range being replaced.
  if (keepLeadingComment) clone.commentBefore = undefined;
  clone.spaceBefore = false;
  const lines = new Document(clone).toString(STRINGIFY).replace(/\n+$/, '').split('\n');
  return `${lines.map((line, i) => (i === 0 || line === '' ? line : ' '.repeat(col) + line)).join('\n')}\n`;
}

function itemsById(seq: YAMLSeq): Map<string, YAMLMap> | null {
  const out = new Map<string, YAMLMap>();
  for (const item of seq.items) {
    if (!isMap(item)) return null;
    const id = item.get('id');
    if (typeof id !== 'string' || out.has(id)) return null;
    out.set(id, item);
  }
  return out;
}

function render(node: Node | null | undefined): string {
  if (node === null || node === undefined) return '';
  return new Document(node).toString(STRINGIFY);
}

function keyOf(key: unknown): string {
  return String(isScalar(key) ? key.value : key);
}

/** `end` when it already ends a line, else the end of its line (past a trailing comment). */
function wholeLines(text: string, end: number): number {
  return text[end - 1] === '\n' ? end : lineEnd(text, end);
}

/** Index just past the newline ending the line that holds `index` (or the text's end). */
function lineEnd(text: string, index: number): number {
  const nl = text.indexOf('\n', Math.max(0, index));
  return nl < 0 ? text.length : nl + 1;
}

function lineStart(text: string, index: number): number {
  return text.lastIndexOf('\n', index - 1) + 1;
}
