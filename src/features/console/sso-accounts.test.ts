import { describe, expect, it } from 'vitest';
import type { ConsoleSsoConfig } from '../../config/types.ts';
import type { Draft } from '../../config/write/write-back.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { createMemoryStore } from '../../store/memory.ts';
import { retireAccountId } from '../admin/account-ids.ts';
import { ensureAccount, profileFromClaims, SsoRefusal } from './sso-accounts.ts';

const sso: ConsoleSsoConfig = {
  name: 'Acme SSO',
  issuer: 'https://idp.example.com',
  client_id: 'gateway',
  client_secret: 'secret',
  scopes: ['openid', 'email', 'profile'],
  email_claim: 'email',
  name_claim: 'name',
  role_claim: 'groups',
  admin_values: ['gateway-admins'],
  group_claim: 'team',
};

function runtimeWith(accounts: Array<{ id: string; email: string; role: 'admin' | 'member'; group?: string }>, writeBack = true): Runtime {
  return {
    current: () => ({
      groups: new Map([['research', {}]]),
      accounts: new Map(accounts.map((a) => [a.id, a])),
      config: { accounts, management: { write_back: writeBack } },
    }),
    services: {},
  } as unknown as Runtime;
}

const silent = { info() {}, warn() {}, error() {}, debug() {} } as never;
/** With write-back off nothing is written: a writer that fails the test if it is used. */
const noWriter = { change: () => Promise.reject(new Error('unexpected write')), instanceId: 'test' };

describe('profileFromClaims', () => {
  it('maps the email, name, role and group claims', () => {
    const profile = profileFromClaims({ email: 'Carol@Corp.example', name: 'Carol', groups: ['staff', 'gateway-admins'], team: 'research' }, sso, runtimeWith([]));
    expect(profile).toEqual({ email: 'carol@corp.example', name: 'Carol', role: 'admin', group: 'research' });
  });

  it('makes a member when no role value is an admin value, and leaves out a group the file does not declare', () => {
    const profile = profileFromClaims({ email: 'dan@corp.example', groups: 'staff', team: 'marketing' }, sso, runtimeWith([]));
    expect(profile).toEqual({ email: 'dan@corp.example', name: 'dan', role: 'member', group: undefined });
  });

  it('refuses claims without an email', () => {
    expect(() => profileFromClaims({ sub: 'x' }, sso, runtimeWith([]))).toThrow(SsoRefusal);
  });
});

describe('ensureAccount with write-back off', () => {
  it('signs a known account in as the file says, whatever the claims', async () => {
    const runtime = runtimeWith([{ id: 'carol', email: 'carol@corp.example', role: 'member' }], false);
    expect(await ensureAccount({ runtime, writer: noWriter }, { email: 'carol@corp.example', name: 'Carol', role: 'admin' }, silent)).toBe('carol');
  });

  it('refuses an unknown email, saying why', async () => {
    const runtime = runtimeWith([], false);
    await expect(ensureAccount({ runtime, writer: noWriter }, { email: 'eve@corp.example', name: 'Eve', role: 'member' }, silent)).rejects.toThrow(/read-only/);
  });
});

describe('ensureAccount with write-back on', () => {
  it("creates a new email's account under an id no deleted account had", async () => {
    const accounts = [{ id: 'carol', email: 'carol@corp.example', role: 'member' as const }];
    const runtime = { ...runtimeWith(accounts), store: createMemoryStore() } as Runtime;
    // dave and dave-2 were deleted; dave-3 is free.
    await retireAccountId(runtime.store, 'dave');
    await retireAccountId(runtime.store, 'dave-2');
    const appended: Array<Record<string, unknown>> = [];
    const draft = {
      snapshot: runtime.current(),
      items: { append: (_collection: string, item: Record<string, unknown>) => void appended.push(item) },
    } as unknown as Draft;
    const writer = { change: async <T>(edit: (d: Draft) => T | Promise<T>) => edit(draft), instanceId: 'test' };
    const id = await ensureAccount({ runtime, writer }, { email: 'dave@corp.example', name: 'Dave', role: 'member' }, silent);
    expect(id).toBe('dave-3');
    expect(appended).toEqual([expect.objectContaining({ id: 'dave-3', email: 'dave@corp.example', role: 'member' })]);
  });
});
