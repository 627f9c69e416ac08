/**
 * The OAuth server, built on its first use (a sign-in, an OAuth endpoint, a token to check): a
 * gateway nobody signs in to never loads oidc-provider and its Koa app (~25 MiB resident).
 */
import type Provider from 'oidc-provider';
import { lazily } from '../../kernel/lazily.ts';

export interface ProviderHandle {
  (): Promise<Provider>;
  /** Asked for at least once in this process. */
  readonly used: boolean;
}

export function providerHandle(build: () => Promise<Provider>): ProviderHandle {
  const built = lazily(build);
  const state = { used: false };
  const handle = () => {
    state.used = true;
    return built();
  };
  return Object.defineProperty(handle, 'used', { get: () => state.used }) as ProviderHandle;
}
