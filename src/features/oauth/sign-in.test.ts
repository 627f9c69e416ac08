import { randomBytes, scryptSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { verifyPassword } from '../../config/password.ts';
import { testConfig, testRuntime } from '../../pipeline/test-context.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { createMemoryStore } from '../../store/memory.ts';
import { createRedisStore } from '../../store/redis.ts';
import type { StateStore } from '../../store/types.ts';
import type { SecurityService } from '../security/service.ts';
import { createSecurityState, statusKey } from '../security/state.ts';
import { ACCOUNT_LIMIT, ADDRESS_LIMIT, createSignIn } from './sign-in.ts';

// The real hash, counted: the limits must hold before any hash is computed.
vi.mock('../../config/password.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../config/password.ts')>();
  return { ...real, verifyPassword: vi.fn(real.verifyPassword) };
});

// "correct horse battery", at a cheap cost (ln=10) so many tries stay fast.
const CONFIG = `
providers: []
accounts:
  - id: alice
    email: alice@example.com
    name: Alice
    role: member
    password_hash: $scrypt$ln=10,r=8,p=1$5vCv0mk0sn6uzK4z2o5hPQ$6DgTAbVk2qN94wzfj9dTEREJ5AnaqHYTOFSFwXQEK/Y
`;
const PASSWORD = 'correct horse battery';
const silent = { info() {}, warn() {}, error() {} };
/** No account here has 2FA or login alerts, and no test mails a code: the service is never called. */
const security = {} as SecurityService;

const stores: Array<[string, () => Promise<StateStore>]> = [
  ['memory', async () => createMemoryStore()],
  ['redis', () => createRedisStore(process.env.REDIS_URL || 'redis://127.0.0.1:6379', { prefix: `gwtest-signin-${randomBytes(4).toString('hex')}:` })],
];

describe.each(stores)('the sign-in throttles on the %s store', (_name, make) => {
  let store: StateStore;
  let runtime: Runtime;
  let addresses = 0;
  const client = () => ({ ip: `10.9.0.${++addresses}`, userAgent: 'UnitBrowser/1.0' });

  beforeAll(async () => {
    store = await make();
    runtime = { ...testRuntime(testConfig(CONFIG)), store };
  });
  afterAll(async () => {
    await store.close();
  });
  beforeEach(() => {
    vi.mocked(verifyPassword).mockClear();
  });

  it('lets only the limit of parallel wrong passwords for one email reach the hash, and refuses the rest with 429', async () => {
    const signIn = createSignIn(runtime, security, silent);
    const from = client();
    const results = await Promise.all(Array.from({ length: 18 }, (_, i) => signIn.withPassword('alice@example.com', `wrong-${i}`, null, from)));
    const statuses = results.map((result) => (result.kind === 'refused' ? result.status : result.kind));
    expect(statuses.filter((status) => status === 401)).toHaveLength(ACCOUNT_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(18 - ACCOUNT_LIMIT);
    expect(verifyPassword).toHaveBeenCalledTimes(ACCOUNT_LIMIT);
    // The email is locked now, even for the right password, from another address too.
    expect(await signIn.withPassword('ALICE@example.com', PASSWORD, null, client())).toMatchObject({ kind: 'refused', status: 429, error: 'accountLocked', offerCode: true });
    expect(verifyPassword).toHaveBeenCalledTimes(ACCOUNT_LIMIT);
  });

  it('holds the address limit under parallel tries of many emails', async () => {
    const signIn = createSignIn(runtime, security, silent);
    const from = client();
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn.withPassword(`nobody-${i}-${from.ip}@example.com`, 'guess', null, from)));
    const refused = results.filter((result) => result.kind === 'refused' && result.status === 429);
    expect(refused).toHaveLength(30 - ADDRESS_LIMIT);
    expect(refused[0]).toMatchObject({ error: 'networkLocked' });
    expect(verifyPassword).toHaveBeenCalledTimes(ADDRESS_LIMIT);
  });

  it('counts failures only: an attempt whose password is right gives its place back', async () => {
    const bruno = createSignIn({ ...testRuntime(testConfig(CONFIG.replaceAll('alice', 'bruno'))), store }, security, silent);
    for (let i = 0; i < ACCOUNT_LIMIT + 2; i++) {
      // A new browser each time.
      expect(await bruno.withPassword('bruno@example.com', PASSWORD, null, { ip: '10.9.1.1', userAgent: null })).toMatchObject({ kind: 'signed-in' });
    }
    expect(await bruno.withPassword('bruno@example.com', 'wrong', null, { ip: '10.9.1.1', userAgent: null })).toMatchObject({ kind: 'refused', status: 401 });
  });
});

/** A PHC hash of `password` at a cheap cost (ln=10), as `npm run hash-password` writes them. */
function cheapHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize('NFKC'), salt, 32, { N: 1024, r: 8, p: 1 });
  const b64 = (buf: Buffer) => buf.toString('base64').replace(/=+$/, '');
  return `$scrypt$ln=10,r=8,p=1$${b64(salt)}$${b64(key)}`;
}

describe.each(stores)('trusted devices at sign-in on the %s store', (_name, make) => {
  let store: StateStore;
  let addresses = 0;
  const accounts: string[] = [];
  /** A fresh account id, whose security state is removed afterwards (it has no TTL). */
  const newId = (name: string) => {
    const id = `${name}-${randomBytes(3).toString('hex')}`;
    accounts.push(id);
    return id;
  };
  const client = (deviceCookie?: string) => ({ ip: `10.8.0.${++addresses}`, userAgent: 'UnitBrowser/1.0', deviceCookie });
  // The second factor is always right here: these tests are about what the cookie lets skip.
  const withSecondFactor = { checkSecondFactor: async () => true } as unknown as SecurityService;

  /** A gateway with `ids` as accounts (all with PASSWORD), whose configuration `reconfigure` replaces. */
  function gateway(ids: string[]) {
    const yaml = (hash: (id: string) => string) =>
      `providers: []\naccounts:\n${ids.map((id) => `  - { id: ${id}, email: ${id}@example.com, name: ${id}, role: member, password_hash: "${hash(id)}" }`).join('\n')}\n`;
    const hashes = new Map(ids.map((id) => [id, cheapHash(PASSWORD)]));
    let current = testRuntime(testConfig(yaml((id) => hashes.get(id)!))).current();
    const runtime: Runtime = { ...testRuntime(), store, current: () => current };
    return {
      signIn: createSignIn(runtime, withSecondFactor, silent),
      /** A new password for `id`, as an admin's PUT or a hand edit of gateway.yaml gives it. */
      setPassword(id: string, password: string) {
        hashes.set(id, cheapHash(password));
        current = testRuntime(testConfig(yaml((account) => hashes.get(account)!))).current();
      },
    };
  }

  /** Turns TOTP on for `id` (as a verified enrolment does) and signs in once through it: the device cookie. */
  async function trustedCookie(signIn: ReturnType<typeof createSignIn>, id: string, password = PASSWORD): Promise<string> {
    const first = await signIn.withPassword(`${id}@example.com`, password, null, client());
    expect(first).toMatchObject({ kind: 'second-factor' });
    const done = await signIn.withSecondFactor(id, '123456', client());
    if (done.kind !== 'signed-in') throw new Error(`not signed in: ${JSON.stringify(done)}`);
    return done.deviceCookie;
  }

  const enableTwoFactor = (id: string, secret = 'JBSWY3DPEHPK3PXP') =>
    createSecurityState(store).update(id, { two_factor_enabled: true, two_factor_method: 'totp', totp_secret: secret });

  beforeAll(async () => {
    store = await make();
  });
  afterAll(async () => {
    for (const id of accounts) await store.del(statusKey(id));
    await store.close();
  });
  beforeEach(() => {
    vi.mocked(verifyPassword).mockClear();
  });

  it('skips the second factor, but not the per-email throttle: wrong passwords with the cookie are counted and refused past it', async () => {
    const id = newId('tina');
    const { signIn } = gateway([id]);
    await enableTwoFactor(id);
    const cookie = await trustedCookie(signIn, id);
    expect(await signIn.withPassword(`${id}@example.com`, PASSWORD, null, client(cookie))).toMatchObject({ kind: 'signed-in' });

    vi.mocked(verifyPassword).mockClear();
    const statuses: Array<number | string> = [];
    for (let i = 0; i < 25; i++) {
      const result = await signIn.withPassword(`${id}@example.com`, `wrong-${i}`, null, client(cookie));
      statuses.push(result.kind === 'refused' ? result.status : result.kind);
    }
    expect(statuses.filter((status) => status === 401)).toHaveLength(ACCOUNT_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(25 - ACCOUNT_LIMIT);
    expect(verifyPassword).toHaveBeenCalledTimes(ACCOUNT_LIMIT);
    // Locked for the trusted browser too, right password or not.
    expect(await signIn.withPassword(`${id}@example.com`, PASSWORD, null, client(cookie))).toMatchObject({ kind: 'refused', status: 429, error: 'accountLocked' });
  });

  it('counts the attempts of a trusted browser against its address as well', async () => {
    const id = newId('uma');
    const { signIn } = gateway([id]);
    await enableTwoFactor(id);
    const cookie = await trustedCookie(signIn, id);
    const from = { ...client(cookie) };
    for (let i = 0; i < ADDRESS_LIMIT; i++) await signIn.withPassword(`nobody-${i}-${from.ip}@example.com`, 'guess', null, from);
    expect(await signIn.withPassword(`${id}@example.com`, PASSWORD, null, from)).toMatchObject({ kind: 'refused', status: 429, error: 'networkLocked' });
  });

  it("is bound to its account: one account's cookie skips nothing for another", async () => {
    const [a, b] = [newId('vera'), newId('walt')];
    const { signIn } = gateway([a, b]);
    await enableTwoFactor(a);
    await enableTwoFactor(b);
    const cookieOfA = await trustedCookie(signIn, a);
    expect(await signIn.withPassword(`${a}@example.com`, PASSWORD, null, client(cookieOfA))).toMatchObject({ kind: 'signed-in' });
    expect(await signIn.withPassword(`${b}@example.com`, PASSWORD, null, client(cookieOfA))).toMatchObject({ kind: 'second-factor', accountId: b });
  });

  it('is revoked by a new password, wherever it was set', async () => {
    const id = newId('xena');
    const { signIn, setPassword } = gateway([id]);
    await enableTwoFactor(id);
    const cookie = await trustedCookie(signIn, id);
    setPassword(id, 'a brand new password');
    expect(await signIn.withPassword(`${id}@example.com`, 'a brand new password', null, client(cookie))).toMatchObject({ kind: 'second-factor' });
    // Through the second factor again, the browser is trusted under the new password.
    const renewed = await trustedCookie(signIn, id, 'a brand new password');
    expect(await signIn.withPassword(`${id}@example.com`, 'a brand new password', null, client(renewed))).toMatchObject({ kind: 'signed-in' });
  });

  it('is revoked when the second factor changes: a device trusted before an enrolment skips nothing after it', async () => {
    const id = newId('yuri');
    const { signIn } = gateway([id]);
    // Trusted while 2FA was off (a password-only sign-in)...
    const plain = await signIn.withPassword(`${id}@example.com`, PASSWORD, null, client());
    if (plain.kind !== 'signed-in') throw new Error('not signed in');
    // ...then the account turns TOTP on: that browser never gave a code, so it must give one.
    await enableTwoFactor(id);
    expect(await signIn.withPassword(`${id}@example.com`, PASSWORD, null, client(plain.deviceCookie))).toMatchObject({ kind: 'second-factor' });
    const cookie = await trustedCookie(signIn, id);
    expect(await signIn.withPassword(`${id}@example.com`, PASSWORD, null, client(cookie))).toMatchObject({ kind: 'signed-in' });
    // Enrolled again (a new secret, after a disable): the device asks again.
    await enableTwoFactor(id, 'KRSXG5CTMVRXEZLU');
    expect(await signIn.withPassword(`${id}@example.com`, PASSWORD, null, client(cookie))).toMatchObject({ kind: 'second-factor' });
  });
});
