/**
 * Applies one item edit to a window of the file instead of the whole file: the edited item and
 * its neighbours are cut out under their list's key, edited and rendered by the same code as a
 * whole-file edit (yaml-edit.ts, yaml-splice.ts, which parses the result back to check it), and
 * put back. The cost depends on the window, not on the file's size. The neighbours are in the
 * window so that the check also sees that the items around the change kept their data.
 */
import { parseDocument } from 'yaml';
import { editDocument, idInFile, type ItemEdit } from './item-edits.ts';
import { parseConfig, type ItemSpan, type ParsedConfig } from './parsed-config.ts';
import type { Collection } from './yaml-edit.ts';
import { lineBreakOf, spliceEdited } from './yaml-splice.ts';

/** The state after `edit`, or null when the edit needs the whole file (the caller does that). */
export function editWindow(parsed: ParsedConfig, edit: ItemEdit): ParsedConfig | null {
  const spans = parsed.lists.get(edit.collection);
  if (!spans) return null;
  const at = edit.kind === 'append' ? spans.length - 1 : spans.findIndex((span) => span.id === edit.id);
  // Removing the last item turns the list into `[]`, a change of the list's own line.
  if (at < 0 || (edit.kind === 'remove' && spans.length === 1)) return null;
  const first = Math.max(0, at - 1);
  const last = Math.min(spans.length - 1, at + 1);
  const start = spans[first]!.start;
  const end = spans[last]!.end;

  // With the file's line ending, so that the splice writes new lines the way the file has them.
  const header = `${edit.collection}:${lineBreakOf(parsed.text)}`;
  const before = header + parsed.text.slice(start, end);
  const doc = parseDocument(before);
  editDocument(doc, [edit]);
  const after = spliceEdited(before, doc);
  if (after === null || !after.startsWith(header)) return null;
  const window = parseConfig(after);
  const newSpans = window?.lists.get(edit.collection);
  const newItems = window?.raw[edit.collection];
  if (!newSpans || !Array.isArray(newItems) || Object.keys(window!.raw).length !== 1) return null;
  if (newSpans.map((span) => span.id).join('\0') !== expectedIds(spans.slice(first, last + 1), edit).join('\0')) return null;

  const body = after.slice(header.length);
  const text = parsed.text.slice(0, start) + body + parsed.text.slice(end);
  const delta = body.length - (end - start);
  const moved = (span: ItemSpan, by: number): ItemSpan => ({ id: span.id, start: span.start + by, end: span.end + by });
  const lists = new Map<Collection, readonly ItemSpan[]>();
  for (const [collection, list] of parsed.lists) {
    if (collection === edit.collection) {
      const inWindow = newSpans.map((span) => moved(span, start - header.length));
      lists.set(collection, [...list.slice(0, first), ...inWindow, ...list.slice(last + 1).map((span) => moved(span, delta))]);
    } else {
      lists.set(collection, list.map((span) => (span.start >= end ? moved(span, delta) : span)));
    }
  }
  const items = parsed.raw[edit.collection] as unknown[];
  const raw = { ...parsed.raw, [edit.collection]: [...items.slice(0, first), ...newItems, ...items.slice(last + 1)] };
  return { text, raw, lists };
}

function expectedIds(window: readonly ItemSpan[], edit: ItemEdit): string[] {
  const ids = window.map((span) => span.id);
  if (edit.kind === 'append') return [...ids, idInFile(String(edit.value.id))];
  if (edit.kind === 'remove') return ids.filter((id) => id !== edit.id);
  return ids;
}
