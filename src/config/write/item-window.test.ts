import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { editDocument, type ItemEdit } from './item-edits.ts';
import { editWindow } from './item-window.ts';
import { parseConfig, type ParsedConfig } from './parsed-config.ts';
import { renderEdited } from './yaml-splice.ts';

const TEXT = `# header comment
server:
  body_limit: 65536     # spaced comment
providers:
  # above the item
  - id: a
    type: compat        # wire
    endpoint: http://a/v1
    models: [x, y]
  - id: b
    type: compat
    endpoint: http://b/v1
keys:
- id: k1
  name: first   # trailing
  permissions:
    models: [x]

- id: k2
  name: second
  # inside k2
- id: k3
  name: third
groups: []
# footer
`;

/** The same edit through the whole document, as the writer did before the window existed. */
function wholeFile(text: string, edit: ItemEdit): string {
  const doc = parseDocument(text);
  editDocument(doc, [edit]);
  return renderEdited(text, doc);
}

/** Applies edits one after the other through windows, checking each state against a fresh parse. */
function run(edits: ItemEdit[]): ParsedConfig {
  let state = parseConfig(TEXT)!;
  for (const edit of edits) {
    const expected = wholeFile(state.text, edit);
    const next = editWindow(state, edit);
    expect(next, JSON.stringify(edit)).not.toBeNull();
    expect(next!.text).toBe(expected);
    // The derived state is exactly what parsing the new text gives: spans and data.
    expect(next).toEqual(parseConfig(next!.text));
    state = next!;
  }
  return state;
}

describe('editWindow', () => {
  it('appends, merges and removes exactly as a whole-file edit, and derives the parse of the result', () => {
    const final = run([
      { kind: 'append', collection: 'keys', value: { id: 'k4', name: 'fourth', permissions: { models: ['x', 'y'] } } },
      { kind: 'merge', collection: 'keys', id: 'k1', fields: { name: 'renamed ${NOT_EXPANDED}', status: 'inactive' } },
      { kind: 'remove', collection: 'keys', id: 'k2' },
      { kind: 'merge', collection: 'providers', id: 'a', fields: { quota_limit: 5, type: undefined } },
      { kind: 'append', collection: 'providers', value: { id: 'c', type: 'compat', endpoint: 'http://c/v1' } },
      { kind: 'remove', collection: 'keys', id: 'k4' },
      { kind: 'remove', collection: 'keys', id: 'k1' },
    ]);
    expect(final.text).toContain('# header comment\n');
    expect(final.text).toContain('  # above the item\n  - id: a\n');
    expect(final.text).toContain('groups: []\n# footer\n');
    expect(final.raw.keys).toEqual([{ id: 'k3', name: 'third' }]);
    expect((final.raw.providers as { id: string }[]).map((p) => p.id)).toEqual(['a', 'b', 'c']);
  });

  it('keeps every other byte: a create then a delete gives the original text back', () => {
    const added = editWindow(parseConfig(TEXT)!, { kind: 'append', collection: 'keys', value: { id: 'tmp', name: 't' } })!;
    expect(editWindow(added, { kind: 'remove', collection: 'keys', id: 'tmp' })!.text).toBe(TEXT);
  });

  it('writes a CRLF file\'s new lines with CRLF, as the whole-file edit does', () => {
    const crlf = TEXT.replace(/\n/g, '\r\n');
    let state = parseConfig(crlf)!;
    for (const edit of [
      { kind: 'append', collection: 'keys', value: { id: 'k4', name: 'fourth', permissions: { models: ['x'] } } },
      { kind: 'merge', collection: 'providers', id: 'b', fields: { quota_limit: 5, headers: { A: 'b' } } },
      { kind: 'merge', collection: 'keys', id: 'k1', fields: { permissions: null } },
      { kind: 'remove', collection: 'keys', id: 'k2' },
    ] satisfies ItemEdit[]) {
      const next = editWindow(state, edit)!;
      expect(next, JSON.stringify(edit)).not.toBeNull();
      expect(next.text).toBe(wholeFile(state.text, edit));
      expect(next).toEqual(parseConfig(next.text));
      state = next;
    }
    expect(state.text).not.toMatch(/[^\r]\n/);
    expect(state.text).toContain('- id: k4\r\n  name: fourth\r\n  permissions:\r\n    models: [ x ]\r\n');
  });

  it('leaves to the whole-file path what it cannot do in place', () => {
    const state = parseConfig(TEXT)!;
    // An empty list gets its first item on the list's own line.
    expect(editWindow(state, { kind: 'append', collection: 'groups', value: { id: 'g' } })).toBeNull();
    // A list whose last item goes becomes `[]`.
    const one = parseConfig('keys:\n  - id: only\n    name: x\n')!;
    expect(editWindow(one, { kind: 'remove', collection: 'keys', id: 'only' })).toBeNull();
    // A merge that renames the item is not the item the window expects.
    expect(editWindow(state, { kind: 'merge', collection: 'keys', id: 'k2', fields: { id: 'k9' } })).toBeNull();
  });
});

describe('parseConfig', () => {
  it('refuses files tied together by directives, anchors, aliases or merge keys, and broken files', () => {
    expect(parseConfig('base: &b {type: compat}\nproviders:\n  - id: a\n    <<: *b\n')).toBeNull();
    expect(parseConfig('keys:\n  - id: a\n    name: [unclosed\n')).toBeNull();
    expect(parseConfig('- just a list\n')).toBeNull();
    expect(parseConfig('%YAML 1.1\n---\nkeys:\n  - id: a\n    enabled: yes\n')).toBeNull();
  });

  it('indexes only block lists of items with distinct string ids', () => {
    const parsed = parseConfig('keys: [{id: a}]\nmodels:\n  - id: m\n  - id: m\ngroups:\n  - id: g\n    name: G\n')!;
    expect([...parsed.lists.keys()]).toEqual(['groups']);
    expect(parsed.lists.get('groups')).toEqual([{ id: 'g', start: 'keys: [{id: a}]\nmodels:\n  - id: m\n  - id: m\ngroups:\n'.length, end: expect.any(Number) }]);
  });
});
