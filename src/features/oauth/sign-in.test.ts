import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { verifyPassword } from '../../config/password.ts';
import { testConfig, testRuntime } from '../../pipeline/test-context.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { createMemoryStore } from '../../store/memory.ts';
import { createRedisStore } from '../../store/redis.ts';
import type { StateStore } from '../../store/types.ts';
import type { SecurityService } from '../security/service.ts';
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
      // A new browser each time (a trusted one would not be counted at all).
      expect(await bruno.withPassword('bruno@example.com', PASSWORD, null, { ip: '10.9.1.1', userAgent: null })).toMatchObject({ kind: 'signed-in' });
    }
    expect(await bruno.withPassword('bruno@example.com', 'wrong', null, { ip: '10.9.1.1', userAgent: null })).toMatchObject({ kind: 'refused', status: 401 });
  });
});
