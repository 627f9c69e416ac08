import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { renderEdited } from './yaml-splice.ts';
import { appendItem, itemAt, mergeInto, removeItem } from './yaml-edit.ts';

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
groups: []
# footer
`;

describe('renderEdited', () => {
  it('changes only the edited value text', () => {
    const doc = parseDocument(TEXT);
    mergeInto(doc, itemAt(doc, 'providers', 'a')!, { type: 'custom', quota_limit: 5 });
    const out = renderEdited(TEXT, doc);
    expect(out).toBe(TEXT.replace('type: compat        # wire', 'type: custom        # wire').replace('    models: [x, y]\n', '    models: [x, y]\n    quota_limit: 5\n'));
  });

  it('appends and removes list items without touching the rest', () => {
    const doc = parseDocument(TEXT);
    appendItem(doc, 'providers', { id: 'c', type: 'compat', endpoint: 'http://c/v1', models: ['z'] });
    removeItem(doc, 'providers', 'b');
    const out = renderEdited(TEXT, doc);
    expect(out).toContain('  body_limit: 65536     # spaced comment\n');
    expect(out).toContain('  # above the item\n  - id: a\n    type: compat        # wire\n');
    expect(out).not.toContain('id: b');
    expect(out).toContain('  - id: c\n    type: compat\n    endpoint: http://c/v1\n    models: [ z ]\n');
    expect(parseDocument(out).toJS().providers.map((p: { id: string }) => p.id)).toEqual(['a', 'c']);
  });

  it('fills an empty flow list and empties a block list', () => {
    const doc = parseDocument(TEXT);
    appendItem(doc, 'groups', { id: 'g1', name: 'G1' });
    const out = renderEdited(TEXT, doc);
    expect(parseDocument(out).toJS().groups).toEqual([{ id: 'g1', name: 'G1' }]);
    expect(out).toContain('# header comment\n');
    expect(out).toContain('# footer\n');
    const doc2 = parseDocument(out);
    removeItem(doc2, 'groups', 'g1');
    expect(parseDocument(renderEdited(out, doc2)).toJS().groups).toEqual([]);
  });

  it('round-trips create + delete to the identical text', () => {
    const doc = parseDocument(TEXT);
    appendItem(doc, 'providers', { id: 'tmp', type: 'compat', endpoint: 'http://t/v1' });
    const added = renderEdited(TEXT, doc);
    const doc2 = parseDocument(added);
    removeItem(doc2, 'providers', 'tmp');
    expect(renderEdited(added, doc2)).toBe(TEXT);
  });
});
