/**
 * Request-body validation with the JSON Schemas in schemas/api: compiled once at import,
 * ajv errors turned into a 400 that names the offending `param` (Fastify-style).
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { invalidBody } from '../../kernel/errors.ts';

// The schemas ship with the code and the tests hold them to the meta-schema: none of it at run time.
const ajv = new Ajv2020.default({ allErrors: false, strict: false, validateSchema: false });

/** `/messages/0/role` → `messages[0].role` (brackets only where the body holds an array). */
export function paramOf(error: ErrorObject, body: unknown): string | null {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  if (!segments.length) return null;
  let path = '';
  let node: unknown = body;
  for (const part of segments) {
    path = Array.isArray(node) ? `${path}[${part}]` : path ? `${path}.${part}` : part;
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  }
  return path;
}

function describe(error: ErrorObject, param: string | null): string {
  const subject = param ?? 'body';
  switch (error.keyword) {
    case 'required':
      return `Missing required parameter: '${param}'.`;
    case 'enum':
      return `Invalid value for '${subject}': must be one of ${(error.params.allowedValues as unknown[]).join(', ')}.`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `Invalid value for '${subject}': ${error.message}.`;
    default:
      return `Invalid value for '${subject}': ${error.message}.`;
  }
}

export function compileBodyValidator<T>(schema: object): (body: unknown) => T {
  const validate: ValidateFunction = ajv.compile(schema);
  return (body) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidBody('The request body must be a JSON object.');
    if (!validate(body)) {
      const error = validate.errors![0];
      const param = paramOf(error, body);
      throw invalidBody(describe(error, param), param);
    }
    return body as T;
  };
}
