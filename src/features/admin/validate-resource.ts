/**
 * API bodies are checked with the same JSON Schema as gateway.yaml: each resource's `$defs` entry
 * (provider, model, group, key, account), so the API and the file can never disagree on what is
 * valid. The first error becomes a 400 naming the field.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import * as resources from '../../config/gateway-validator.generated.js';
import { invalidBody, invalidValue } from '../../kernel/errors.ts';

export type ResourceKind = 'provider' | 'model' | 'group' | 'key' | 'account' | 'guardrail';

/** Generated ahead of time with gateway.yaml's own validator (scripts/generate-validators.ts). */
const validators: Record<ResourceKind, ValidateFunction> = resources;

function fieldOf(error: ErrorObject): string {
  const base = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const params = error.params as Record<string, unknown>;
  const extra = (params.missingProperty ?? params.additionalProperty) as string | undefined;
  return [base, extra].filter(Boolean).join('.') || '(body)';
}

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  // An error about a field *name* (`propertyNames`: a provider's header names).
  if (error.propertyName !== undefined) {
    const name = error.propertyName.length > 40 ? `${error.propertyName.slice(0, 40)}…` : error.propertyName;
    return `has the name ${JSON.stringify(name)}, which ${error.message ?? `fails ${error.keyword}`}`;
  }
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'format':
      return `must be a valid ${params.format}`;
    default:
      return error.message ?? `fails ${error.keyword}`;
  }
}

/**
 * Throws 400 unless `item` (a whole resource as it would be written) is valid. Validates a copy:
 * schema defaults must not end up in the file.
 */
export function assertValidResource(kind: ResourceKind, item: Record<string, unknown>): void {
  const validate = validators[kind];
  if (validate(structuredClone(item))) return;
  const error = validate.errors![0]!;
  const field = fieldOf(error);
  throw invalidValue(`\`${field}\` ${describe(error)}.`, field);
}

/** Throws 400 unless the body is a JSON object. */
export function assertObjectBody(body: unknown): asserts body is Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidBody('The request body must be a JSON object.');
}
