import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { loadConfigText } from '../load.ts';
import { editDocument, recordEdits } from './item-edits.ts';
import { editWindow } from './item-window.ts';
import { holdsItem, parseConfig } from './parsed-config.ts';
import { renderEdited } from './yaml-splice.ts';

const TEXT = `providers:
  - id: p
    type: compat
    endpoint: http://127.0.0.1:1/v1
models:
  - id: before
    provider: p
  - id: tpl-$\${HOME}
    provider: p
  - id: after
    provider: p
`;

describe('item edits name items by their id as loaded', () => {
  it('find an id holding `${` (written `$${` in the file) on both the window and the whole-file path', () => {
    const loaded = loadConfigText(TEXT, 'gateway.yaml', {}, {});
    expect(loaded.ok && loaded.config.models.map((m) => m.id)).toEqual(['before', 'tpl-${HOME}', 'after']);
    const parsed = parseConfig(TEXT)!;
    const editor = recordEdits((collection, id) => holdsItem(parsed, collection, id));
    expect(editor.merge('models', 'tpl-${HOME}', { name: 'Renamed' })).toBe(true);
    expect(editor.remove('models', 'tpl-${HOME}')).toBe(true);
    expect(editor.merge('models', 'tpl-${HOME}', { name: 'Again' })).toBe(false);

    const [merge, remove] = editor.edits;
    const viaWindow = editWindow(parsed, merge!)!;
    expect(viaWindow.text).toContain('  - id: tpl-$${HOME}\n    provider: p\n    name: Renamed\n');
    const doc = parseDocument(TEXT);
    editDocument(doc, [merge!]);
    expect(renderEdited(TEXT, doc)).toBe(viaWindow.text);

    expect(editWindow(parsed, remove!)!.text).not.toContain('tpl-');
  });

  it('an item appended with such an id is found by the window check (no whole-file fallback)', () => {
    const parsed = parseConfig(TEXT)!;
    const editor = recordEdits((collection, id) => holdsItem(parsed, collection, id));
    editor.append('models', { id: 'new-${X}', provider: 'p' });
    expect(editor.merge('models', 'new-${X}', { name: 'n' })).toBe(true);
    const appended = editWindow(parsed, editor.edits[0]!);
    expect(appended?.text).toContain('  - id: new-$${X}\n');
  });
});
