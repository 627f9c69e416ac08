import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import schema from '../../schemas/gateway.schema.json' with { type: 'json' };
import { exampleOf, fieldsOf, REGENERATE_COMMAND, renderReference, undescribed, type SchemaNode } from './reference.ts';
import { createConfigAjv, GATEWAY_SCHEMA_ID } from './config-ajv.ts';

const root = schema as SchemaNode;
const PAGE = new URL('../../docs/configuration-reference.md', import.meta.url);

describe('configuration reference (docs/configuration-reference.md)', () => {
  it('matches the schema: the committed page is what the generator writes', () => {
    const committed = readFileSync(PAGE, 'utf8');
    const stale = committed !== renderReference(root);
    expect(stale, `docs/configuration-reference.md is stale: run \`${REGENERATE_COMMAND}\` and commit the page`).toBe(false);
  });

  it('explains every setting in the schema itself', () => {
    const missing = undescribed(root);
    expect(
      missing,
      `Properties without a "description" in schemas/gateway.schema.json:\n  ${missing.join('\n  ')}\nAdd one to each, then run \`${REGENERATE_COMMAND}\`.`,
    ).toEqual([]);
  });

  it('documents every property, $refs and list items included', () => {
    const paths = fieldsOf(root).map((field) => field.path);
    expect(paths).toContain('server.port');
    expect(paths).toContain('providers[].timeouts.connect');
    expect(paths).toContain('keys[].permissions.quota_period');
    expect(paths).toContain('settings.notifications.balance_threshold');
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('gives examples each field accepts on its own', () => {
    const ajv = createConfigAjv({ useDefaults: false, strict: false });
    const rejected = fieldsOf(root)
      .filter((field) => {
        // Nested $refs point into the registered gateway schema.
        const node = JSON.parse(JSON.stringify(field.node).replaceAll('"#/$defs/', `"${GATEWAY_SCHEMA_ID}#/$defs/`));
        return !ajv.validate(node, exampleOf(root, field.node));
      })
      .map((field) => field.path);
    expect(rejected).toEqual([]);
  });

  it('names the fields without a description, and renders them as such', () => {
    const bare: SchemaNode = { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'integer', minimum: 2 } } } } };
    expect(undescribed(bare)).toEqual(['a', 'a.b']);
    expect(renderReference(bare)).toContain('### `a.b`\n\n**Type:** integer · **Bounds:** at least 2\n\n_No description yet._\n\n```yaml\na:\n  b: 2\n```');
  });
});
