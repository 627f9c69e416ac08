import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { createConfigAjv } from './config-ajv.ts';

/** Every schema the code ships (gateway.yaml's, the request bodies', the built-in plugins' options). */
const SCHEMA_DIR = new URL('../../schemas/', import.meta.url);
const shippedSchemas = readdirSync(SCHEMA_DIR, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.schema.json'));

// The gateway compiles them without the meta-schema check (it cost every start time and memory):
// this is where a mistake in one is caught.
describe('the shipped JSON Schemas', () => {
  const meta = new Ajv2020({ strict: false });
  it('are all here', () => expect(shippedSchemas.length).toBeGreaterThanOrEqual(13));
  it.each(shippedSchemas)('%s is valid JSON Schema 2020-12', (name) => {
    const schema = JSON.parse(readFileSync(join(SCHEMA_DIR.pathname, name), 'utf8'));
    expect(meta.validateSchema(schema), meta.errorsText(meta.errors)).toBe(true);
  });
});

describe('gateway.schema.json', () => {
  const ajv = createConfigAjv();

  it.each(['provider', 'model', 'group', 'key', 'account', 'oauthClient', 'settings', 'pipelineEntry', 'timeouts'])(
    'exposes $defs/%s for other validators',
    (name) => {
      expect(ajv.getSchema(`gateway.schema.json#/$defs/${name}`)).toBeTypeOf('function');
    },
  );

  it('validates a management body against a resource definition, with defaults', () => {
    const validate = ajv.getSchema('gateway.schema.json#/$defs/provider')!;
    const body: Record<string, unknown> = { id: 'p1', type: 'vendor_b', endpoint: 'https://api.example.com' };
    expect(validate(body)).toBe(true);
    expect(body).toMatchObject({ status: 'active', models: [], quota_limit: 0 });
    expect(validate({ id: 'p1', type: 'vendor_x', endpoint: 'https://api.example.com' })).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ instancePath: '/type', keyword: 'enum' });
  });

  it('accepts a PHC scrypt password hash and rejects anything else', () => {
    const validate = ajv.getSchema('gateway.schema.json#/$defs/account')!;
    const phc = '$scrypt$ln=17,r=8,p=1$rb+zPTOTuVy8mkzD44MAsg$Ghc6G2dY10x/ucyq7AaAEChW0BrAbg1gkKG+J2pZWMc';
    expect(validate({ id: 'a', email: 'a@example.com', password_hash: phc })).toBe(true);
    expect(validate({ id: 'a', email: 'a@example.com', password_hash: 'hunter2' })).toBe(false);
  });
});
