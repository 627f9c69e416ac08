/**
 * The configuration reference (docs/configuration-reference.md), rendered from
 * schemas/gateway.schema.json alone: the schema's `description`s are the one place a setting is
 * explained, so the page cannot say something the validator does not enforce. `npm run
 * docs:config` writes it; reference.test.ts fails when the committed page is stale.
 *
 * Every property becomes one entry named by its path (`providers[].timeouts.connect`), `$ref`s
 * inlined where they are used, with its type, default, bounds, allowed values, description and
 * an example in YAML.
 */
import { stringify } from 'yaml';

/** The part of JSON Schema 2020-12 the gateway schema uses. */
export interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  description?: string;
  default?: unknown;
  examples?: unknown[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  uniqueItems?: boolean;
  required?: string[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  if?: SchemaNode;
  then?: SchemaNode;
  else?: SchemaNode;
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  $defs?: Record<string, SchemaNode>;
  title?: string;
}

/** One documented setting. */
export interface Field {
  /** `server.port`, `providers[].name`, `keys[].permissions.models`. */
  path: string;
  node: SchemaNode;
  required: boolean;
}

export const REGENERATE_COMMAND = 'npm run docs:config';

function resolve(root: SchemaNode, node: SchemaNode): SchemaNode {
  if (!node.$ref) return node;
  const name = node.$ref.replace(/^#\/\$defs\//, '');
  const target = root.$defs?.[name];
  if (!target) throw new Error(`Unresolvable $ref ${node.$ref}`);
  // Keywords beside the $ref (a description, a default) win over the definition's.
  const { $ref: _ref, ...beside } = node;
  return { ...resolve(root, target), ...beside };
}

/** The object shape a node describes (itself, its `else` branch, or its `additionalProperties` map). */
function objectShape(node: SchemaNode): SchemaNode | undefined {
  if (node.properties) return node;
  if (node.else?.properties) return node.else;
  return undefined;
}

/** Every property of the schema, depth first, in the schema's order. */
export function fieldsOf(root: SchemaNode): Field[] {
  const fields: Field[] = [];
  const visit = (node: SchemaNode, prefix: string, seen: readonly string[]) => {
    const shape = objectShape(node);
    for (const [name, raw] of Object.entries(shape?.properties ?? {})) {
      // A $ref that leads back to a definition being expanded would recurse for ever.
      if (raw.$ref && seen.includes(raw.$ref)) continue;
      const child = resolve(root, raw);
      const path = prefix ? `${prefix}.${name}` : name;
      fields.push({ path, node: child, required: shape?.required?.includes(name) ?? false });
      const nextSeen = raw.$ref ? [...seen, raw.$ref] : seen;
      visit(child, path, nextSeen);
      const items = child.items && resolve(root, child.items);
      if (items) visit(items, `${path}[]`, child.items?.$ref ? [...nextSeen, child.items.$ref] : nextSeen);
      const values = typeof child.additionalProperties === 'object' ? resolve(root, child.additionalProperties) : undefined;
      if (values) visit(values, `${path}.<name>`, nextSeen);
    }
  };
  visit(root, '', []);
  return fields;
}

/** The paths of properties without a description: the schema is where settings are explained. */
export function undescribed(root: SchemaNode): string[] {
  return fieldsOf(root)
    .filter((field) => !field.node.description?.trim())
    .map((field) => field.path);
}

const code = (value: unknown) => `\`${JSON.stringify(value)}\``;

function typeOf(root: SchemaNode, node: SchemaNode): string {
  if (node.if && node.then && node.else) return `${typeOf(root, resolve(root, node.then))} or ${typeOf(root, resolve(root, node.else))}`;
  const variants = node.oneOf ?? node.anyOf;
  if (variants) return variants.map((v) => typeOf(root, resolve(root, v))).join(' or ');
  const types = Array.isArray(node.type) ? node.type : node.type ? [node.type] : [];
  return (
    types
      .map((type) => {
        if (type !== 'array' || !node.items) return type;
        return `array of ${typeOf(root, resolve(root, node.items))}`;
      })
      .join(' or ') || (node.enum ? 'enum' : 'any')
  );
}

function bounds(node: SchemaNode): string[] {
  const out: string[] = [];
  const range = (low: number | undefined, high: number | undefined, unit: string) => {
    if (low !== undefined && high !== undefined) out.push(`${low} to ${high}${unit}`);
    else if (low !== undefined) out.push(`at least ${low}${unit}`);
    else if (high !== undefined) out.push(`at most ${high}${unit}`);
  };
  range(node.minimum, node.maximum, '');
  if (node.exclusiveMinimum !== undefined) out.push(`greater than ${node.exclusiveMinimum}`);
  if (node.exclusiveMaximum !== undefined) out.push(`less than ${node.exclusiveMaximum}`);
  range(node.minLength, node.maxLength, ' characters');
  range(node.minItems, node.maxItems, ' items');
  if (node.maxProperties !== undefined) out.push(`at most ${node.maxProperties} entries`);
  if (node.uniqueItems) out.push('no duplicates');
  if (node.format) out.push(`format \`${node.format}\``);
  if (node.pattern) out.push(`pattern \`${node.pattern}\``);
  return out;
}

function allowed(root: SchemaNode, node: SchemaNode): unknown[] | undefined {
  if (node.enum) return node.enum;
  if (node.then?.enum) return resolve(root, node.then).enum;
  const items = node.items && resolve(root, node.items);
  return items?.enum;
}

/** A value that passes the field's own keywords: its first example, its default, or one made up. */
export function exampleOf(root: SchemaNode, node: SchemaNode): unknown {
  if (node.examples?.length) return node.examples[0];
  if (node.default !== undefined && !(Array.isArray(node.default) && node.default.length === 0)) return node.default;
  const values = allowed(root, node);
  if (values?.length) return Array.isArray(node.type) || node.type === 'array' ? [values[0]] : values[0];
  const type = Array.isArray(node.type) ? node.type.find((t) => t !== 'null') : node.type;
  switch (type) {
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return node.minimum ?? (node.exclusiveMinimum !== undefined ? node.exclusiveMinimum + 1 : 1);
    case 'string':
      if (node.format === 'date-time') return '2025-01-01T00:00:00.000Z';
      return node.format === 'uri' ? 'https://example.com' : node.format === 'email' ? 'ops@example.com' : 'example';
    case 'array':
      return node.items ? [exampleOf(root, resolve(root, node.items))] : [];
    default: {
      // An object: its required settings, each with its own example.
      const shape = objectShape(node);
      return Object.fromEntries((shape?.required ?? []).map((name) => [name, exampleOf(root, resolve(root, shape!.properties![name]!))]));
    }
  }
}

/** The example as YAML nested under its path (`providers[].name` as a one-item list). */
function exampleYaml(path: string, value: unknown): string {
  let nested = value;
  for (const part of path.split('.').reverse()) {
    const key = part.replace(/\[\]$/, '');
    const name = key === '<name>' ? 'example' : key;
    nested = { [name]: part.endsWith('[]') ? [nested] : nested };
  }
  return stringify(nested, { lineWidth: 0 }).trimEnd();
}

function entry(root: SchemaNode, field: Field): string {
  const { node } = field;
  const facts: string[] = [`**Type:** ${typeOf(root, node)}`];
  if (field.required) facts.push('**Required**');
  if (node.default !== undefined) facts.push(`**Default:** ${code(node.default)}`);
  const limits = bounds(node);
  if (limits.length) facts.push(`**Bounds:** ${limits.join(', ')}`);
  const values = allowed(root, node);
  if (values) facts.push(`**Allowed:** ${values.map(code).join(', ')}`);
  const description = node.description?.trim() || '_No description yet._';
  const example = exampleOf(root, node);
  // An object with nothing required has its example in the settings below it.
  const bare = typeof example === 'object' && example !== null && !Array.isArray(example) && Object.keys(example).length === 0;
  const shown = bare ? [] : ['```yaml', exampleYaml(field.path, example), '```', ''];
  return [`### \`${field.path}\``, '', facts.join(' · '), '', description, '', ...shown].join('\n');
}

/** The whole page, deterministic for a given schema. */
export function renderReference(root: SchemaNode): string {
  const fields = fieldsOf(root);
  const sections = Object.keys(root.properties ?? {});
  const lines = [
    '# Configuration reference',
    '',
    `<!-- Generated from schemas/gateway.schema.json by \`${REGENERATE_COMMAND}\`: edit the schema's descriptions, not this page. -->`,
    '',
    root.description ?? '',
    '',
    'Every setting of `gateway.yaml`, by its path: `[]` marks the items of a list, `<name>` the keys of a map.',
    'Defaults are filled in by the validator; `npm run validate` checks a file against the same schema.',
    '',
    ...sections.map((name) => `- [\`${name}\`](#${name})`),
    '',
  ];
  for (const name of sections) {
    lines.push(`## ${name}`, '');
    for (const field of fields.filter((f) => f.path === name || f.path.startsWith(`${name}.`) || f.path.startsWith(`${name}[]`))) {
      lines.push(entry(root, field));
    }
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
