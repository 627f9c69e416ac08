/**
 * What a management change does to gateway.yaml, recorded as item operations on the top-level
 * lists (add one, merge fields into one, remove one), so that the writer can apply them either to
 * a small window of the file (see item-window.ts) or to the whole parsed document.
 */
import type { Document } from 'yaml';
import { appendItem, asLiteral, itemAt, mergeInto, removeItem, type Collection } from './yaml-edit.ts';

/**
 * An item's id as the file spells it. The API writes every value literally (asLiteral), so an id
 * holding `${` stands in the file as `$${`: edits find items by that form, or a model `a${b}`
 * created through the API could be read but never updated or deleted.
 */
export const idInFile = (id: string): string => asLiteral(id) as string;

/** Edits name items by their id as the file spells it (idInFile). */
export type ItemEdit =
  | { kind: 'append'; collection: Collection; value: Record<string, unknown> }
  | { kind: 'merge'; collection: Collection; id: string; fields: Record<string, unknown> }
  | { kind: 'remove'; collection: Collection; id: string };

/** The edits a change may make. `merge` and `remove` answer false when the file has no such item. */
export interface ItemEditor {
  append(collection: Collection, value: Record<string, unknown>): void;
  merge(collection: Collection, id: string, fields: Record<string, unknown>): boolean;
  remove(collection: Collection, id: string): boolean;
}

/**
 * An editor that records; `inFile` says whether the file (before this change) holds an item, by
 * its id as the file spells it. Callers name items by their id as loaded.
 */
export function recordEdits(inFile: (collection: Collection, id: string) => boolean): ItemEditor & { readonly edits: ItemEdit[] } {
  const edits: ItemEdit[] = [];
  // Items added or removed earlier in the same change, so later edits see them.
  const changed = new Map<string, boolean>();
  const exists = (collection: Collection, id: string) => changed.get(`${collection}\0${id}`) ?? inFile(collection, id);
  return {
    edits,
    append(collection, value) {
      edits.push({ kind: 'append', collection, value });
      if (typeof value.id === 'string') changed.set(`${collection}\0${idInFile(value.id)}`, true);
    },
    merge(collection, loadedId, fields) {
      const id = idInFile(loadedId);
      if (!exists(collection, id)) return false;
      edits.push({ kind: 'merge', collection, id, fields });
      return true;
    },
    remove(collection, loadedId) {
      const id = idInFile(loadedId);
      if (!exists(collection, id)) return false;
      edits.push({ kind: 'remove', collection, id });
      changed.set(`${collection}\0${id}`, false);
      return true;
    },
  };
}

/** Applies `edits` to `doc` through the Document API (comments and untouched nodes kept). */
export function editDocument(doc: Document, edits: readonly ItemEdit[]): void {
  for (const edit of edits) {
    if (edit.kind === 'append') appendItem(doc, edit.collection, edit.value);
    else if (edit.kind === 'remove') removeItem(doc, edit.collection, edit.id);
    else {
      const node = itemAt(doc, edit.collection, edit.id);
      if (!node) throw new Error(`${edit.collection} item '${edit.id}' vanished during the edit`);
      mergeInto(doc, node, edit.fields);
    }
  }
}
