/**
 * The ajv that knows gateway.yaml's schema (schemas/gateway.schema.json, JSON Schema 2020-12):
 * what scripts/generate-validators.ts generates the validators of the whole file and of each
 * resource from (the gateway runs them precompiled: src/config/gateway-validator.generated.js).
 * Nothing at run time imports it.
 */
import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import schema from '../../schemas/gateway.schema.json' with { type: 'json' };

/** The `$id` of the gateway schema; resources are at `${GATEWAY_SCHEMA_ID}#/$defs/<name>`. */
export const GATEWAY_SCHEMA_ID = 'gateway.schema.json';

/**
 * A fresh ajv (2020-12, allErrors, useDefaults, strict, formats) with the gateway schema added, so
 * other code can compile `gateway.schema.json#/$defs/provider` or add its own schemas next to it.
 * @example createConfigAjv().getSchema('gateway.schema.json#/$defs/provider')
 */
export function createConfigAjv(extra: Options = {}): Ajv2020 {
  // No meta-schema check at run time (schema.test.ts holds the schema to it): compiling the
  // 2020-12 meta-schema cost every start time and memory for a file that ships with the code.
  const ajv = new Ajv2020({ allErrors: true, useDefaults: true, strict: true, allowUnionTypes: true, validateSchema: false, ...extra });
  formats.default(ajv);
  ajv.addSchema(schema);
  return ajv;
}
