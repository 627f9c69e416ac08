import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { renderEdited } from './yaml-splice.ts';
import { appendItem, ConfigReference, itemAt, mergedFields, mergeInto, removeItem } from './yaml-edit.ts';

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

describe('renderEdited keeps each comment on its line', () => {
  const edit = (text: string, change: (doc: ReturnType<typeof parseDocument>) => void) => {
    const doc = parseDocument(text);
    change(doc);
    return renderEdited(text, doc);
  };

  it('fills an empty flow list with a comment after it below the comment', () => {
    const text = 'server:\n  port: 1\ngroups: []   # no groups yet\nkeys: []\n';
    const out = edit(text, (doc) => appendItem(doc, 'groups', { id: 'g', name: 'G', created_at: '2020-01-01T00:00:00Z' }));
    expect(out).toBe('server:\n  port: 1\ngroups:   # no groups yet\n  - id: g\n    name: G\n    created_at: 2020-01-01T00:00:00Z\nkeys: []\n');
  });

  it('appends after a flow item and its comment, never between them', () => {
    const text = 'providers:\n  - { id: mock, type: compat, endpoint: "http://x/v1" }  # flow item\nmodels: []\n';
    const out = edit(text, (doc) => appendItem(doc, 'providers', { id: 'p2', type: 'compat', endpoint: 'http://y/v1' }));
    expect(out).toBe('providers:\n  - { id: mock, type: compat, endpoint: "http://x/v1" }  # flow item\n  - id: p2\n    type: compat\n    endpoint: http://y/v1\nmodels: []\n');
  });

  it('updates a flow item in place with its comment once, and removes it with its comment', () => {
    const text = 'providers:\n  - id: b\n    type: compat\n    endpoint: http://b/v1\n  - { id: mock, type: compat, endpoint: "http://x/v1" }  # flow item\nmodels: []\n';
    const merged = edit(text, (doc) => mergeInto(doc, itemAt(doc, 'providers', 'mock')!, { type: 'custom' }));
    expect(merged).toBe(text.replace('type: compat, endpoint', 'type: custom, endpoint'));
    const removed = edit(text, (doc) => removeItem(doc, 'providers', 'mock'));
    expect(removed).toBe('providers:\n  - id: b\n    type: compat\n    endpoint: http://b/v1\nmodels: []\n');
  });

  it('writes new lines with the file\'s CRLF line ending, on every path', () => {
    const crlf = (s: string) => s.replace(/\n/g, '\r\n');
    const text = crlf(TEXT);
    const appended = edit(text, (doc) => appendItem(doc, 'providers', { id: 'c', type: 'compat', endpoint: 'http://c/v1' }));
    expect(appended).toBe(crlf(TEXT.replace('    endpoint: http://b/v1\n', '    endpoint: http://b/v1\n  - id: c\n    type: compat\n    endpoint: http://c/v1\n')));
    const merged = edit(text, (doc) => mergeInto(doc, itemAt(doc, 'providers', 'a')!, { quota_limit: 5, headers: { A: 'b' } }));
    expect(merged).toBe(crlf(TEXT.replace('    models: [x, y]\n', '    models: [x, y]\n    quota_limit: 5\n    headers:\n      A: b\n')));
    const filled = edit(text, (doc) => appendItem(doc, 'groups', { id: 'g1', name: 'G1' }));
    expect(filled).toBe(crlf(TEXT.replace('groups: []\n', 'groups:\n  - id: g1\n    name: G1\n')));
    // A change the splice does not handle (a new top-level section) re-renders the whole file.
    const whole = edit(text, (doc) => doc.set('routing', { retries: 1 }));
    expect(whole).not.toMatch(/[^\r]\n/);
    expect(parseDocument(whole).toJS().routing).toEqual({ retries: 1 });
  });
});

describe('mergeInto with null', () => {
  const text = 'keys:\n  - id: k\n    name: K   # the name\n    permissions:\n      quota_period: daily   # resets\n      models: [a]\n    hint: \'0000\'\n# end\n';
  const merge = (fields: Record<string, unknown>) => {
    const doc = parseDocument(text);
    mergeInto(doc, itemAt(doc, 'keys', 'k')!, fields);
    return renderEdited(text, doc);
  };

  it('removes the field\'s line, keeping the other lines and their comments', () => {
    expect(merge({ name: null })).toBe(text.replace('    name: K   # the name\n', ''));
    expect(merge({ permissions: { quota_period: null } })).toBe(text.replace('      quota_period: daily   # resets\n', ''));
  });

  it('leaves `{}` for a nested map it empties, without re-rendering the file', () => {
    expect(merge({ permissions: { quota_period: null, models: null } })).toBe(text.replace('    permissions:\n      quota_period: daily   # resets\n      models: [a]\n', '    permissions: {}\n'));
  });

  it('writes a secret reference as its text, replacing a scalar (a rotated provider key)', () => {
    expect(merge({ name: new ConfigReference('${secret:k_name}') })).toBe(text.replace('name: K   # the name', 'name: ${secret:k_name}   # the name'));
  });

  it('writes no null into a new map', () => {
    expect(merge({ timeouts: { connect: 5, idle: null } })).toBe(text.replace('# end\n', '    timeouts:\n      connect: 5\n# end\n'));
  });
});

describe('mergedFields', () => {
  it('merges nested objects key by key, null removing a key, other values replacing', () => {
    const base = { id: 'm', endpoint: 'http://x', timeouts: { connect: 1, idle: 2 }, models: ['a'] };
    expect(mergedFields(base, { endpoint: null, timeouts: { idle: null, total: 3 }, models: ['b'], headers: { A: 'x', B: null } })).toEqual({
      id: 'm', timeouts: { connect: 1, total: 3 }, models: ['b'], headers: { A: 'x' },
    });
    expect(base.timeouts).toEqual({ connect: 1, idle: 2 });
  });

  it('keeps a `__proto__` field as an own field, for the validator to refuse', () => {
    const merged = mergedFields({ id: 'm' }, JSON.parse('{"__proto__": {"x": 1}}'));
    expect(Object.hasOwn(merged, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
  });
});
