/**
 * Small Document-API edits on gateway.yaml's top-level lists: find an item by id, add one, merge
 * fields into one (existing scalar nodes keep their comments and quoting), remove one.
 */
import { isMap, isScalar, isSeq, type Document, type Node, type YAMLMap, type YAMLSeq } from 'yaml';

export type Collection = 'providers' | 'models' | 'groups' | 'keys' | 'accounts' | 'guardrails';

/** The list under `name`, created (block style) when absent or null. */
export function listOf(doc: Document, name: Collection): YAMLSeq {
  const found = doc.get(name, true);
  if (isSeq(found)) return found;
  const seq = doc.createNode([]) as YAMLSeq;
  doc.set(name, seq);
  return seq;
}

/** Index of the item with `id` in the list `name`, or -1. */
export function indexOf(doc: Document, name: Collection, id: string): number {
  const found = doc.get(name, true);
  if (!isSeq(found)) return -1;
  return found.items.findIndex((item) => isMap(item) && item.get('id') === id);
}

export function itemAt(doc: Document, name: Collection, id: string): YAMLMap | null {
  const index = indexOf(doc, name, id);
  return index < 0 ? null : ((listOf(doc, name).items[index] as YAMLMap) ?? null);
}

/**
 * A `${…}` reference that the gateway itself writes (a provider key moved to the secrets file):
 * the one value written as a template. Everything else from the API is data.
 */
export class ConfigReference {
  constructor(readonly text: string) {}
}

/**
 * Values from the API are data, never templates: gateway.yaml expands `${…}` at load, so each
 * `${` is written in its literal form `$${` (a name of `${GATEWAY_MASTER_KEY}` must not become the
 * master key at the next reload). Map keys are field names and are never expanded, so they stay.
 */
export function asLiteral(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('${', () => '$${'); // a function: in a replacement string `$$` means one `$`
  if (value instanceof ConfigReference) return value.text;
  if (Array.isArray(value)) return value.map(asLiteral);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, asLiteral(item)]));
  return value;
}

/** A node for `value` where lists of scalars are written inline (`models: [a, b]`), as people write them. */
export function nodeFor(doc: Document, value: unknown): Node {
  const node = doc.createNode(asLiteral(value)) as Node;
  inlineScalarLists(node);
  return node;
}

function inlineScalarLists(node: unknown): void {
  if (isSeq(node)) {
    if (node.items.every((item) => isScalar(item))) node.flow = true;
    else node.items.forEach(inlineScalarLists);
  } else if (isMap(node)) {
    for (const pair of node.items) inlineScalarLists(pair.value);
  }
}

export function appendItem(doc: Document, name: Collection, value: Record<string, unknown>): void {
  const seq = listOf(doc, name);
  if (seq.items.length === 0) seq.flow = false;
  seq.add(nodeFor(doc, value));
}

/**
 * Merges `fields` into `map`: nested objects merge key by key, `null` or `undefined` removes a key
 * (a partial PUT clears an optional field with `null`), other values replace. A scalar replaced by
 * a scalar keeps its node (so its trailing comment stays).
 */
export function mergeInto(doc: Document, map: YAMLMap, fields: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) {
      map.delete(key);
      continue;
    }
    const existing = map.get(key, true);
    if (isPlainObject(value) && isMap(existing)) {
      mergeInto(doc, existing, value);
    } else if (isScalar(existing) && typeof value !== 'object') {
      existing.value = asLiteral(value);
    } else {
      map.set(key, nodeFor(doc, withoutNulls(value)));
    }
  }
}

/**
 * `fields` merged over `base` the way `mergeInto` merges them into the file: nested objects key by
 * key, `null` or `undefined` removing a key, anything else replacing. For checking a partial
 * update as a whole item before it is written.
 */
export function mergedFields(base: Record<string, unknown>, fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) {
      delete out[key];
      continue;
    }
    const merged = isPlainObject(value) && Object.hasOwn(out, key) && isPlainObject(out[key]) ? mergedFields(out[key], value) : withoutNulls(value);
    // An own property even for `__proto__`, so the check sees every field the body names.
    Object.defineProperty(out, key, { value: merged, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** `value` without the object keys whose value is `null` (at any depth): a new node holds only what is set. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  // Only data from a body: a ConfigReference (or any other class) is written as it is.
  if (!isPlainObject(value) || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== null).map(([key, item]) => [key, withoutNulls(item)]));
}

export function removeItem(doc: Document, name: Collection, id: string): boolean {
  const index = indexOf(doc, name, id);
  if (index < 0) return false;
  listOf(doc, name).delete(index);
  return true;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
