import { describe, expect, it } from 'vitest';
import { createConfigAjv } from './validate.ts';

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
