/**
 * Between an admin resource's JSON and its form's texts: lists as commas, headers as `Name: value`
 * lines, weighted deployments as `provider[:upstream model]=weight`, booleans as a choice, and
 * dotted field names (`timeouts.connect`) as nested objects.
 */
import type { FieldSpec } from './resource-specs.ts';

type Item = Record<string, unknown>;

/** The value at a dotted path of `item`. */
export function valueAt(item: Item | undefined, name: string): unknown {
  let value: unknown = item;
  for (const part of name.split('.')) value = value && typeof value === 'object' ? (value as Item)[part] : undefined;
  return value;
}

/** Sets a dotted path, making the objects on the way. */
export function setAt(body: Item, name: string, value: unknown): void {
  const parts = name.split('.');
  let target = body;
  for (const part of parts.slice(0, -1)) target = (target[part] ??= {}) as Item;
  target[parts[parts.length - 1]!] = value;
}

export function textOf(field: FieldSpec, value: unknown): string {
  if (value == null || field.kind === 'secret') return '';
  switch (field.kind) {
    case 'headers':
      return Object.entries(value as Record<string, string>).map(([name, v]) => `${name}: ${v}`).join('\n');
    case 'deployments':
      return (value as Array<{ provider: string; upstream_model?: string; weight?: number }>)
        .map((d) => `${d.provider}${d.upstream_model ? `:${d.upstream_model}` : ''}${d.weight === undefined ? '' : `=${d.weight}`}`)
        .join(', ');
    case 'bool':
      return value === true ? 'true' : value === false ? 'false' : '';
    default:
      return Array.isArray(value) ? value.join(', ') : String(value);
  }
}

/** Headers from `Name: value` lines; a line without a colon is kept whole so the API names it. */
function headersOf(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const colon = line.indexOf(':');
    if (colon < 0) headers[line.trim()] = '';
    else headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function deploymentsOf(text: string): unknown[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [target = '', weight] = entry.split('=');
      const [provider = '', upstream] = target.split(':');
      const deployment: Record<string, unknown> = { provider: provider.trim() };
      if (upstream?.trim()) deployment.upstream_model = upstream.trim();
      if (weight !== undefined) deployment.weight = Number.isNaN(Number(weight)) ? weight.trim() : Number(weight);
      return deployment;
    });
}

/** The JSON value of a form field, or undefined to leave it out. */
export function valueOf(field: FieldSpec, text: string): unknown {
  const trimmed = text.trim();
  if (field.kind === 'list') return trimmed ? trimmed.split(',').map((s) => s.trim()).filter(Boolean) : [];
  if (trimmed === '') return undefined;
  switch (field.kind) {
    // Not a number stays text, so the API says what is wrong with it (beside the field).
    case 'number':
      return Number.isNaN(Number(trimmed)) ? trimmed : Number(trimmed);
    case 'secret':
      return text;
    case 'headers':
      return headersOf(text);
    case 'deployments':
      return deploymentsOf(trimmed);
    case 'bool':
      return trimmed === 'true';
    default:
      return trimmed;
  }
}

/**
 * The PUT body of an edit: only the fields whose text changed; a cleared one is null (back to its
 * default), and a header left out is null too (PUT merges headers name by name).
 */
export function changedBody(fields: FieldSpec[], initial: Record<string, string>, values: Record<string, string>, item: Item): Item {
  const body: Item = {};
  for (const field of fields) {
    if (values[field.name] === initial[field.name]) continue;
    const value = valueOf(field, values[field.name] ?? '');
    if (field.kind === 'headers') {
      const next = (value ?? {}) as Record<string, string | null>;
      for (const name of Object.keys((valueAt(item, field.name) as Record<string, string> | undefined) ?? {})) if (!(name in next)) next[name] = null;
      setAt(body, field.name, next);
    } else if (value !== undefined) setAt(body, field.name, value);
    else if (field.kind !== 'secret') setAt(body, field.name, null);
  }
  return body;
}

/** The POST body of a create: the fields with a value. */
export function createBody(fields: FieldSpec[], values: Record<string, string>): Item {
  const body: Item = {};
  for (const field of fields) {
    const value = valueOf(field, values[field.name] ?? '');
    if (value !== undefined) setAt(body, field.name, value);
  }
  return body;
}
