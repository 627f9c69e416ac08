/**
 * Maps a data path (ajv `instancePath` segments) back to the YAML node it came from, so that every
 * config problem can say `file:line:col`.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

export type Segment = string | number;

/** Splits a JSON pointer (`/providers/0/type`) into segments, numbers for array indexes. */
export function pointerToSegments(pointer: string): Segment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9][0-9]*)$/.test(s) ? Number(s) : s));
}

/** `['providers', 0, 'type']` -> `providers[0].type`; odd keys are quoted: `headers["x y"]`. */
export function formatPath(segments: readonly Segment[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(s)) out += out ? `.${s}` : s;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out || '(root)';
}

/**
 * Finds the node at `segments`. When the path does not exist in the file (a missing field, a
 * value filled by a default or a merge key), returns the deepest ancestor that does.
 * @param key return the key of the last map entry instead of its value (for unknown fields).
 */
export function findNode(doc: Document, segments: readonly Segment[], key = false): Node | null {
  let node = resolve(doc, doc.contents as Node | null);
  for (let i = 0; i < segments.length && node; i++) {
    const seg = segments[i];
    let next: Node | null = null;
    if (isSeq(node) && typeof seg === 'number') {
      next = (node.items[seg] as Node | undefined) ?? null;
    } else if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && keyText(p.key) === String(seg));
      if (pair) {
        if (key && i === segments.length - 1) return (pair.key as Node) ?? node;
        next = (pair.value as Node | null) ?? (pair.key as Node);
      }
    }
    if (!next) return node;
    node = resolve(doc, next);
  }
  return node;
}

/** 1-based line and column of `node` (start of its range); 1:1 when unknown. */
export function nodePosition(node: Node | null, lines: LineCounter): { line: number; col: number } {
  const offset = node?.range?.[0];
  if (offset === undefined) return { line: 1, col: 1 };
  return lines.linePos(offset);
}

function resolve(doc: Document, node: Node | null): Node | null {
  return node && isAlias(node) ? ((node.resolve(doc) as Node | undefined) ?? node) : node;
}

function keyText(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  return String(key);
}
