/**
 * The OAuth server, built on its first use (a sign-in, an OAuth endpoint, a token to check): a
 * gateway nobody signs in to never loads oidc-provider and its Koa app (~25 MiB resident). When
 * its keys change (key-sync.ts) the next use builds a new one: oidc-provider reads its keys only
 * when built. Its state is in the store, so requests already running on the previous one finish
 * there and the next ones see the same codes, sessions and tokens.
 */
import type Provider from 'oidc-provider';

export interface ProviderHandle {
  (): Promise<Provider>;
  /** Asked for at least once in this process. */
  readonly used: boolean;
  /** The next call builds a new provider (with the keys in force then). */
  renew(): void;
}

export function providerHandle(build: () => Promise<Provider>): ProviderHandle {
  let built: Promise<Provider> | undefined;
  const state = { used: false };
  const handle = () => {
    state.used = true;
    if (built) return built;
    const building = build().catch((error: unknown) => {
      // A failed build is tried again next time (unless a renewal already replaced it).
      if (built === building) built = undefined;
      throw error;
    });
    built = building;
    return building;
  };
  return Object.defineProperties(handle, {
    used: { get: () => state.used },
    renew: { value: () => void (built = undefined) },
  }) as ProviderHandle;
}
