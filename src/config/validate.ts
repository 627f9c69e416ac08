/**
 * Schema validation of gateway.yaml data against schemas/gateway.schema.json (JSON Schema 2020-12),
 * filling defaults in place, and turning ajv errors into readable, located problems.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { pointerToSegments, type Segment } from './positions.ts';
import type { PathProblem } from './problems.ts';
// Generated ahead of time from createConfigAjv() (scripts/generate-validators.ts): no compile at start.
import { gateway as validateGatewayConfig } from './gateway-validator.generated.js';

/**
 * Validates `data` in place (defaults are filled in). `canCoerce(segments)` says whether the value
 * at a path is a plain YAML scalar that came from `${VAR}`: such strings may become the number or
 * boolean the schema expects, as if the value had been written there literally.
 */
export function validateSchema(data: unknown, canCoerce: (segments: Segment[]) => boolean = () => false): PathProblem[] {
  const validate = validateGatewayConfig;
  if (validate(data)) return [];
  let errors = [...(validate.errors ?? [])];
  let coerced = false;
  for (const e of errors) {
    if (e.keyword !== 'type') continue;
    const segments = pointerToSegments(e.instancePath);
    if (!segments.length || !canCoerce(segments)) continue;
    const parent = getAt(data, segments.slice(0, -1)) as Record<string | number, unknown>;
    const value = coerce(parent[segments.at(-1)!], e.params.type as string | string[]);
    if (value === undefined) continue;
    parent[segments.at(-1)!] = value;
    coerced = true;
  }
  if (coerced) {
    if (validate(data)) return [];
    errors = [...(validate.errors ?? [])];
  }
  return errors.flatMap(toProblem);
}

/**
 * Removes from `data` every field the schema does not know, returning one problem (to be
 * reported as a warning) per field removed: how a config of a newer version is read (version.ts).
 * Repeated, because a removed field may have hidden another in its parent's checks. `message`
 * words the warning.
 */
export function dropUnknownFields(data: unknown, message: string): PathProblem[] {
  const dropped: PathProblem[] = [];
  for (;;) {
    if (validateGatewayConfig(data)) return dropped;
    const unknown = (validateGatewayConfig.errors ?? []).filter((e) => e.keyword === 'additionalProperties');
    if (!unknown.length) return dropped;
    for (const e of unknown) {
      const segments = pointerToSegments(e.instancePath);
      const field = (e.params as { additionalProperty: string }).additionalProperty;
      const parent = getAt(data, segments) as Record<string, unknown>;
      if (!(field in parent)) continue;
      delete parent[field];
      dropped.push({ segments: [...segments, field], atKey: true, message });
    }
  }
}

function toProblem(e: ErrorObject): PathProblem[] {
  const segments = pointerToSegments(e.instancePath);
  const p = e.params as Record<string, unknown>;
  // A field name refused by `propertyNames` (a guardrail check's fields depend on its type): the
  // inner error names the field; the outer one only says that some name failed.
  if (e.keyword === 'propertyNames') return [];
  if (e.propertyName !== undefined) {
    const allowed = e.keyword === 'enum' ? ` (known here: ${(p.allowedValues as unknown[]).join(', ')})` : '';
    return [{ segments: [...segments, e.propertyName], atKey: true, message: `is not a known field${allowed}` }];
  }
  switch (e.keyword) {
    // if/then/else: the `then`/`else` error already says what is wrong.
    case 'if':
      return [];
    case 'required':
      return [{ segments: [...segments, p.missingProperty as string], at: segments, message: 'is required' }];
    case 'additionalProperties': {
      const field = p.additionalProperty as string;
      return [{ segments: [...segments, field], atKey: true, message: unknownFieldMessage(segments, field) }];
    }
    case 'enum':
      return [{ segments, message: `must be one of ${(p.allowedValues as unknown[]).join(', ')}` }];
    case 'type':
      return [{ segments, message: `must be ${describeType(p.type as string | string[])}` }];
    case 'format':
      return [{ segments, message: `must be a valid ${p.format}` }];
    case 'pattern':
      return [{ segments, message: `must match ${p.pattern}` }];
    default:
      return [{ segments, message: e.message ?? `fails ${e.keyword}` }];
  }
}

// Hints for the mistakes people actually make: clear secrets where hashes belong.
const HINTS: Record<string, string> = {
  'keys.key': 'keys are stored hashed: put `key_hash: sha256:<hex>` (npm run hash-key -- <key>)',
  'accounts.password': 'store `password_hash` instead (npm run hash-password -- <password>)',
};

function unknownFieldMessage(parent: Segment[], field: string): string {
  const where = parent.filter((s) => typeof s === 'string').join('.');
  const hint = HINTS[`${where}.${field}`];
  return hint ? `is not allowed: ${hint}` : 'is not a known field';
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true or false)',
  object: 'a mapping',
  array: 'a list',
  null: 'null',
};

function describeType(type: string | string[]): string {
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((t) => ARTICLE[t] ?? t).join(' or ');
}

function coerce(value: unknown, type: string | string[]): unknown {
  if (typeof value !== 'string') return undefined;
  const types = Array.isArray(type) ? type : String(type).split(',');
  const v = value.trim();
  if (types.includes('integer') && /^[-+]?[0-9]+$/.test(v)) return Number(v);
  if (types.includes('number') && v !== '' && Number.isFinite(Number(v))) return Number(v);
  if (types.includes('boolean') && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  if (types.includes('null') && /^(null|~|)$/i.test(v)) return null;
  return undefined;
}

function getAt(data: unknown, segments: Segment[]): unknown {
  let cur = data as Record<string | number, unknown>;
  for (const s of segments) cur = cur[s] as Record<string | number, unknown>;
  return cur;
}
