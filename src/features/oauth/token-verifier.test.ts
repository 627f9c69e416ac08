import { describe, expect, it, vi } from 'vitest';
import type Provider from 'oidc-provider';
import { testRuntime } from '../../pipeline/test-context.ts';
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

  it('with shared state, builds the server to look the token up (another instance may have issued it)', async () => {
    const runtime = testRuntime();
    Object.defineProperty(runtime.store, 'kind', { value: 'redis' });
    const provider = fakeProvider({ accountId: 'admin', scope: 'read:api', isExpired: false });
    const build = vi.fn(async () => provider);
    const verifier = createTokenVerifier(providerHandle(build), runtime);
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
