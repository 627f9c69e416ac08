/**
 * The OAuth feature: builds the provider, registers the in-process token verifier
 * (`runtime.services.tokens`) and returns the mount for the HTTP app.
 */
import type { H3 } from 'h3';
import type { Gateway } from '../gateway.ts';
import type { Logger } from '../pipeline/types.ts';
import { mountOAuth } from '../routes/oauth.ts';
import { createOAuthProvider } from './provider.ts';
import { createTokenVerifier } from './token-verifier.ts';

/**
 * Installs OAuth; call from features.ts and pass `mount` to the server options.
 * @example const oauth = await installOAuth(gateway, logger); options.mount = oauth.mount;
 */
export async function installOAuth(gateway: Gateway, logger: Logger): Promise<{ mount(app: H3): void }> {
  const { runtime } = gateway;
  const provider = await createOAuthProvider(runtime, logger);
  (runtime.services as Record<string, unknown>).tokens = createTokenVerifier(provider);
  (runtime.services as Record<string, unknown>).oauth = provider;
  return { mount: (app) => mountOAuth(app, provider, runtime, logger) };
}
