/**
 * The answer must be valid JSON, and match the request's `response_format` JSON schema when it
 * has one (`json_schema.schema`). Schemas come from clients, so each is compiled once and kept
 * in a small LRU keyed by its text; one that does not compile is reported as `invalid_schema`.
 */
import { LRUCache } from 'lru-cache';
import type { ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import type { GatewayContext } from '../../../pipeline/context.ts';
import type { Judge } from '../types.ts';

let ajv: InstanceType<typeof Ajv2020.default> | undefined;
const compiled = new LRUCache<string, ValidateFunction | Error>({ max: 256 });

function validatorFor(schema: unknown): ValidateFunction | Error {
  const key = JSON.stringify(schema);
  let found = compiled.get(key);
  if (found === undefined) {
    ajv ??= new Ajv2020.default({ strict: false, allErrors: false, validateFormats: false });
    try {
      found = ajv.compile(schema as object);
    } catch (error) {
      found = error as Error;
    }
    compiled.set(key, found);
  }
  return found;
}

export function jsonJudge(options: { match_schema: boolean }): Judge {
  return {
    kind: 'judge',
    judge(text, ctx: GatewayContext) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return { categories: ['invalid_json'] };
      }
      const format = ctx.body.response_format as { type?: string; json_schema?: { schema?: unknown } } | undefined;
      const schema = format?.type === 'json_schema' ? format.json_schema?.schema : undefined;
      if (!options.match_schema || schema === undefined) return { categories: [] };
      const validate = validatorFor(schema);
      if (validate instanceof Error) return { categories: ['invalid_schema'] };
      return { categories: validate(value) ? [] : ['schema_mismatch'] };
    },
  };
}
