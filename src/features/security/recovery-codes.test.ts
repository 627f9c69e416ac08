import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig, testRuntime } from '../../pipeline/test-context.ts';
import { createMemoryStore } from '../../store/memory.ts';
import { createRedisStore } from '../../store/redis.ts';
import type { StateStore } from '../../store/types.ts';
import { normalizeRecoveryCode, RECOVERY_CODE_COUNT } from './recovery-codes.ts';
import { createSecurityService, type SecurityService } from './service.ts';
import { statusKey } from './state.ts';

const CONFIG = `
providers: []
accounts:
  - id: alice
    email: alice@example.com
    name: Alice
    role: member
`;
const silent = { info() {}, warn() {}, error() {} };

const stores: Array<[string, () => Promise<StateStore>]> = [
  ['memory', async () => createMemoryStore()],
  ['redis', () => createRedisStore(process.env.REDIS_URL || 'redis://127.0.0.1:6379', { prefix: `gwtest-recovery-${randomBytes(4).toString('hex')}:` })],
];

describe.each(stores)('recovery codes on the %s store', (_name, make) => {
  let store: StateStore;
  let service: SecurityService;
  let account = 0;

  /** A fresh account id with two-factor on (an enrolled authenticator). */
  async function enrolled(): Promise<{ id: string; secret: string }> {
    const id = `alice-${++account}`;
    const sent = await service.sendCode(id, 'totp', id, id);
    const code = new TOTP({ secret: Secret.fromBase32(sent.secret!) }).generate();
    expect((await service.verify(id, 'totp', code)).verified).toBe(true);
    return { id, secret: sent.secret! };
  }

  beforeAll(async () => {
    store = await make();
    service = createSecurityService({ ...testRuntime(testConfig(CONFIG)), store }, silent);
  });
  afterAll(async () => {
    service.close();
    await store.close();
  });

  it('are refused while two-factor is off (409), and count 0 in the status', async () => {
    await expect(service.generateRecoveryCodes('nobody-2fa')).rejects.toMatchObject({ status: 409, code: 'two_factor_disabled' });
    expect((await service.status('nobody-2fa')).recovery_codes_remaining).toBe(0);
  });

  it('generates ten distinct codes, kept only as hashes, counted in the status', async () => {
    const { id } = await enrolled();
    const { codes } = await service.generateRecoveryCodes(id);
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    const stored = (await store.get(statusKey(id)))!;
    for (const code of codes) {
      expect(stored).not.toContain(code);
      expect(stored).not.toContain(normalizeRecoveryCode(code)!);
    }
    expect(JSON.parse(stored).recovery_codes).toEqual(codes.map(() => expect.stringMatching(/^sha256:[0-9a-f]{64}$/)));
    expect((await service.status(id)).recovery_codes_remaining).toBe(RECOVERY_CODE_COUNT);
  });

  it('takes a code once, in any case and spacing; a used one is refused after that', async () => {
    const { id } = await enrolled();
    const { codes } = await service.generateRecoveryCodes(id);
    expect(await service.useRecoveryCode(id, ` ${codes[0]!.toUpperCase().replace('-', ' ')} `)).toBe(true);
    expect(await service.useRecoveryCode(id, codes[0]!)).toBe(false);
    expect((await service.status(id)).recovery_codes_remaining).toBe(RECOVERY_CODE_COUNT - 1);
    expect(await service.useRecoveryCode(id, codes[1]!)).toBe(true);
    expect((await service.status(id)).recovery_codes_remaining).toBe(RECOVERY_CODE_COUNT - 2);
  });

  it('lets only one of several parallel uses of a code through', async () => {
    const { id } = await enrolled();
    const { codes } = await service.generateRecoveryCodes(id);
    const results = await Promise.all(Array.from({ length: 4 }, () => service.useRecoveryCode(id, codes[3]!)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('voids the old set when generating a new one', async () => {
    const { id } = await enrolled();
    const first = (await service.generateRecoveryCodes(id)).codes;
    const second = (await service.generateRecoveryCodes(id)).codes;
    expect(second.some((code) => first.includes(code))).toBe(false);
    expect(await service.useRecoveryCode(id, first[0]!)).toBe(false);
    expect(await service.useRecoveryCode(id, second[0]!)).toBe(true);
    expect((await service.status(id)).recovery_codes_remaining).toBe(RECOVERY_CODE_COUNT - 1);
  });

  it('counts wrong codes against the authenticator-code lock (429 after 5), a right one of the set refused too then', async () => {
    const { id } = await enrolled();
    const { codes } = await service.generateRecoveryCodes(id);
    for (let i = 0; i < 5; i++) expect(await service.useRecoveryCode(id, i % 2 ? 'abcde-fghjk' : 'not a code')).toBe(false);
    await expect(service.useRecoveryCode(id, codes[0]!)).rejects.toMatchObject({ status: 429 });
    await expect(service.checkSecondFactor(id, '123456')).rejects.toMatchObject({ status: 429 });
    expect((await service.status(id)).recovery_codes_remaining).toBe(RECOVERY_CODE_COUNT);
  });

  it('are gone with the second factor: turned off by an admin, or with a code', async () => {
    const { id, secret } = await enrolled();
    const { codes } = await service.generateRecoveryCodes(id);
    await service.resetTwoFactor(id);
    expect((await service.status(id)).recovery_codes_remaining).toBe(0);
    await expect(service.useRecoveryCode(id, codes[0]!)).rejects.toMatchObject({ status: 409 });
    expect(secret).toBeTruthy();

    const again = await enrolled();
    await service.generateRecoveryCodes(again.id);
    service.now = () => Date.now() + 30_000;
    const code = new TOTP({ secret: Secret.fromBase32(again.secret) }).generate({ timestamp: Date.now() + 30_000 });
    expect(await service.disableTwoFactor(again.id, code)).toBe(true);
    service.now = () => Date.now();
    expect((await service.status(again.id)).recovery_codes_remaining).toBe(0);
    expect(JSON.parse((await store.get(statusKey(again.id)))!).recovery_codes).toBeUndefined();
  });
});
