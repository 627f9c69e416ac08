/**
 * gateway.yaml as the management writer remembers it between writes: the text, its plain data
 * (`toJS()` before `${…}` substitution) and where each item of the top-level lists starts and
 * ends. Parsing a large file with the yaml package is the slow part of a write; with this an edit
 * touches only a window of a few items (item-window.ts) and the next state is derived from the
 * old one instead of parsing the whole file again.
 */
import { isMap, isScalar, isSeq, parseDocument, visit, type Document } from 'yaml';
import type { Collection } from './yaml-edit.ts';

const COLLECTIONS: readonly Collection[] = ['providers', 'models', 'groups', 'keys', 'accounts', 'guardrails'];

/** One item of a top-level list: `start` is the start of its `- ` line, `end` the end of its value. */
export interface ItemSpan {
  id: string;
  start: number;
  end: number;
}

export interface ParsedConfig {
  readonly text: string;
  /** `toJS()` of `text`, before `${…}` substitution. Never mutated: states share it. */
  readonly raw: Readonly<Record<string, unknown>>;
  /** Block lists whose items are maps with distinct string ids; other lists are absent. */
  readonly lists: ReadonlyMap<Collection, readonly ItemSpan[]>;
}

/**
 * Parses `text` once. Null when the file is not plain enough to edit piecewise (YAML errors, a
 * top level that is not a map, directives, anchors, aliases or merge keys, which tie parts of the
 * file together): such files take the whole-file path at every write.
 */
export function parseConfig(text: string): ParsedConfig | null {
  // A `%YAML 1.1` directive changes how every scalar of the file reads; a window would not see it.
  if (/^%/m.test(text)) return null;
  const doc = parseDocument(text);
  if (doc.errors.length || !isMap(doc.contents) || hasReferences(doc)) return null;
  const raw = doc.toJS() as Record<string, unknown>;
  const lists = new Map<Collection, ItemSpan[]>();
  for (const collection of COLLECTIONS) {
    const spans = spansOf(text, doc.get(collection, true));
    if (spans) lists.set(collection, spans);
  }
  return { text, raw, lists };
}

/** Whether the file holds an item `id` in `collection`. */
export function holdsItem(parsed: ParsedConfig, collection: Collection, id: string): boolean {
  const list = parsed.raw[collection];
  return Array.isArray(list) && list.some((item) => typeof item === 'object' && item !== null && (item as { id?: unknown }).id === id);
}

function hasReferences(doc: Document): boolean {
  let found = false;
  visit(doc, {
    Alias() {
      found = true;
      return visit.BREAK;
    },
    Node(_key, node) {
      if ((node as { anchor?: string }).anchor) {
        found = true;
        return visit.BREAK;
      }
    },
    Pair(_key, pair) {
      if (isScalar(pair.key) && pair.key.value === '<<') {
        found = true;
        return visit.BREAK;
      }
    },
  });
  return found;
}

function spansOf(text: string, list: unknown): ItemSpan[] | null {
  if (!isSeq(list) || list.flow || !list.items.length) return null;
  const spans: ItemSpan[] = [];
  const ids = new Set<string>();
  for (const item of list.items) {
    if (!isMap(item) || item.flow || !item.range) return null;
    const id = item.get('id');
    if (typeof id !== 'string' || ids.has(id)) return null;
    ids.add(id);
    const start = text.lastIndexOf('\n', item.range[0] - 1) + 1;
    // Only `- key: ...` items: the window must start at the item's dash line.
    if (!/^[ ]*-[ ]+$/.test(text.slice(start, item.range[0]))) return null;
    spans.push({ id, start, end: item.range[1] });
  }
  return spans;
}
