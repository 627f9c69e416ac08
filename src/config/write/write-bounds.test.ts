import { describe, expect, it } from 'vitest';
import type { GatewayConfig, KeyConfig } from '../types.ts';
import type { ItemEdit } from './item-edits.ts';
import { accountKeyBytes, assertWriteBounds } from './write-bounds.ts';

const key = (id: string, account: string, models: string[] = []): KeyConfig => ({
  id, name: id, key_hash: `sha256:${id}`, account, status: 'active', permissions: { models, rate_limit: 0, quota_limit: 0 },
});

const config = (keys: KeyConfig[], perAccount = 2048, perFile = 65536) =>
  ({ keys, management: { write_back: true, rate_limit: 0, max_keys_per_account: 100, max_bytes_per_account: perAccount, max_config_bytes: perFile } }) as unknown as GatewayConfig;

const long = (n: number) => Array.from({ length: n }, (_, i) => `model-${i}-${'x'.repeat(40)}`);

function refusal(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return null;
}

describe('write bounds', () => {
  const small = [key('a1', 'alice'), key('b1', 'bob')];

  it('refuses a key that takes an account past max_bytes_per_account (409 naming the setting)', () => {
    const after = [...small, key('a2', 'alice', long(40))];
    const edits: ItemEdit[] = [{ kind: 'append', collection: 'keys', value: { id: 'a2', account: 'alice' } }];
    const error = refusal(() => assertWriteBounds(config(small), config(after), edits, 'x', 'xx'));
    expect(error).toMatchObject({ status: 409, type: 'invalid_request_error', code: 'account_bytes_limit_reached' });
    expect((error as Error).message).toContain('management.max_bytes_per_account (2048)');
    expect((error as Error).message).toContain(`account 'alice' would take ${accountKeyBytes(after, 'alice')} bytes`);
  });

  it('refuses a merge that grows a key past it, but lets an account over it shrink or delete', () => {
    const big = [key('a1', 'alice', long(40)), key('b1', 'bob')];
    const grow = [key('a1', 'alice', long(41)), key('b1', 'bob')];
    const merge: ItemEdit[] = [{ kind: 'merge', collection: 'keys', id: 'a1', fields: {} }];
    expect(refusal(() => assertWriteBounds(config(big), config(grow), merge, 'x', 'x'))).toMatchObject({ code: 'account_bytes_limit_reached' });
    const shrink = [key('a1', 'alice', long(39)), key('b1', 'bob')];
    expect(refusal(() => assertWriteBounds(config(big), config(shrink), merge, 'x', 'x'))).toBeNull();
    expect(refusal(() => assertWriteBounds(config(big), config([key('b1', 'bob')]), [{ kind: 'remove', collection: 'keys', id: 'a1' }], 'x', 'x'))).toBeNull();
  });

  it('counts only the accounts a change touches: another member over its budget does not block bob', () => {
    const others = [key('a1', 'alice', long(40)), key('b1', 'bob')];
    const after = [...others, key('b2', 'bob', ['gpt'])];
    expect(refusal(() => assertWriteBounds(config(others), config(after), [{ kind: 'append', collection: 'keys', value: { id: 'b2', account: 'bob' } }], 'x', 'xx'))).toBeNull();
  });

  it('refuses a change that grows the file past max_config_bytes (409), and lets it shrink', () => {
    const before = 'a'.repeat(65_000);
    const error = refusal(() => assertWriteBounds(config(small), config(small), [], before, `${before}${'b'.repeat(1000)}`));
    expect(error).toMatchObject({ status: 409, code: 'config_size_limit_reached' });
    expect((error as Error).message).toContain('management.max_config_bytes (65536)');
    expect(refusal(() => assertWriteBounds(config(small), config(small), [], `${before}${'b'.repeat(2000)}`, `${before}${'b'.repeat(1000)}`))).toBeNull();
    // Counted in UTF-8 bytes: 30,000 three-byte characters are 90,000 bytes.
    expect(refusal(() => assertWriteBounds(config(small), config(small), [], 'x', '€'.repeat(30_000)))).toMatchObject({ code: 'config_size_limit_reached' });
  });
});
