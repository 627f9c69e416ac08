import { describe, expect, it, vi } from 'vitest';
import type Provider from 'oidc-provider';
import { testConfig, testRuntime } from '../../pipeline/test-context.ts';
import { legacyOidcKey, oidcKey } from '../../store/oidc-keys.ts';
import { providerHandle } from './provider-handle.ts';
import { createTokenVerifier } from './token-verifier.ts';

const TOKEN = 'a'.repeat(43);

function fakeProvider(found: unknown) {
  return { AccessToken: { find: vi.fn(async () => found) } } as unknown as Provider;
}

describe('the OAuth token verifier over a server built on first use', () => {
  it('with per-process state, answers no one without building the server while it was never used', async () => {
    const runtime = testRuntime();
    const build = vi.fn(async () => fakeProvider(undefined));
    const verifier = createTokenVerifier(providerHandle(build), runtime);
    expect(await verifier.verify(TOKEN, runtime.current())).toBeNull();
    expect(build).not.toHaveBeenCalled();
  });

  it('with per-process state, builds the server for a token kept from before a restart (state.db)', async () => {
    const runtime = testRuntime();
    await runtime.store.set(oidcKey('AccessToken', TOKEN), '{}', 60_000);
    const provider = fakeProvider({ accountId: 'admin', clientId: 'gateway-console', scope: 'read:api', isExpired: false });
    const build = vi.fn(async () => provider);
    const verifier = createTokenVerifier(providerHandle(build), runtime, ['gateway-console']);
    expect(await verifier.verify(TOKEN, runtime.current())).toMatchObject({ kind: 'oauth', accountId: 'admin' });
    expect(build).toHaveBeenCalledOnce();
  });

  it('with per-process state, builds the server for a token an earlier version kept under its id in clear', async () => {
    const runtime = testRuntime();
    await runtime.store.set(legacyOidcKey('AccessToken', TOKEN), '{}', 60_000);
    const provider = fakeProvider({ accountId: 'admin', clientId: 'gateway-console', scope: 'read:api', isExpired: false });
    const build = vi.fn(async () => provider);
    const verifier = createTokenVerifier(providerHandle(build), runtime, ['gateway-console']);
    expect(await verifier.verify(TOKEN, runtime.current())).toMatchObject({ kind: 'oauth', accountId: 'admin' });
    expect(build).toHaveBeenCalledOnce();
  });

  it('with shared state, builds the server to look the token up (another instance may have issued it)', async () => {
    const runtime = testRuntime();
    Object.defineProperty(runtime.store, 'kind', { value: 'redis' });
    const provider = fakeProvider({ accountId: 'admin', clientId: 'gateway-console', scope: 'read:api', isExpired: false });
    const build = vi.fn(async () => provider);
    const verifier = createTokenVerifier(providerHandle(build), runtime, ['gateway-console']);
    const principal = await verifier.verify(TOKEN, runtime.current());
    expect(build).toHaveBeenCalledOnce();
    expect(principal).toMatchObject({ kind: 'oauth', accountId: 'admin', role: 'admin' });
    expect([...principal!.scopes!]).toEqual(['read:api']);
  });

  it('once the server is used, looks tokens up with per-process state too', async () => {
    const runtime = testRuntime();
    const provider = fakeProvider(undefined);
    const handle = providerHandle(async () => provider);
    await handle(); // a sign-in built it
    const verifier = createTokenVerifier(handle, runtime);
    expect(await verifier.verify(TOKEN, runtime.current())).toBeNull();
    expect(provider.AccessToken.find).toHaveBeenCalledWith(TOKEN);
  });
});

describe('what ends an access token before its expiry', () => {
  const CONFIG = `
providers: []
accounts:
  - { id: dave, email: dave@example.com, name: Dave, role: member, created_at: "2026-03-01T10:00:00Z" }
  - { id: erin, email: erin@example.com, name: Erin, role: member }
oauth:
  clients:
    - { client_id: dashboard, client_secret: dashboard-secret-0123456789, redirect_uris: ["http://127.0.0.1:5999/callback"], scopes: [read:api] }
`;
  const createdAt = Date.parse('2026-03-01T10:00:00Z') / 1000;

  async function verify(found: Record<string, unknown>) {
    const runtime = testRuntime(testConfig(CONFIG));
    const handle = providerHandle(async () => fakeProvider({ isExpired: false, scope: 'read:api', ...found }));
    await handle();
    return createTokenVerifier(handle, runtime, ['gateway-console']).verify(TOKEN, runtime.current());
  }

  it('refuses a token of a client gateway.yaml no longer declares, and passes the declared and built-in ones', async () => {
    expect(await verify({ accountId: 'erin', clientId: 'removed-client', iat: createdAt })).toBeNull();
    expect(await verify({ accountId: 'erin', clientId: 'dashboard', iat: createdAt })).toMatchObject({ accountId: 'erin' });
    expect(await verify({ accountId: 'erin', clientId: 'gateway-console', iat: createdAt })).toMatchObject({ accountId: 'erin' });
  });

  it('refuses a token issued before its account was created (an earlier account with the same id)', async () => {
    expect(await verify({ accountId: 'dave', clientId: 'dashboard', iat: createdAt - 1 })).toBeNull();
    expect(await verify({ accountId: 'dave', clientId: 'dashboard' })).toBeNull();
    expect(await verify({ accountId: 'dave', clientId: 'dashboard', iat: createdAt })).toMatchObject({ kind: 'oauth', accountId: 'dave' });
    // An account without created_at (written by hand) has no birth date to compare with.
    expect(await verify({ accountId: 'erin', clientId: 'dashboard', iat: 1 })).toMatchObject({ accountId: 'erin' });
  });
});
