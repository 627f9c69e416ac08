/**
 * Request-body validation with the JSON Schemas in schemas/api, compiled ahead of time
 * (body-validators.generated.js, scripts/generate-validators.ts): ajv errors turned into a 400
 * that names the offending `param` (Fastify-style).
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { invalidBody } from '../../kernel/errors.ts';
import * as generated from './body-validators.generated.js';

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

/** The precompiled validators, by the name of their schema under schemas/api. */
export const precompiledValidators = generated;

/** A body check: the object the validator accepts, typed, or a 400 naming the first problem. */
export function bodyValidator<T>(validate: ValidateFunction): (body: unknown) => T {
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
