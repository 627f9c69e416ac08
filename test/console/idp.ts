/**
 * A company identity provider for the SSO test: a second oidc-provider instance with its
 * development login pages (any login and password), one confidential client (the gateway), and
 * users whose claims carry an email, a role (`gateway_role`) and a team (`team`).
 */
import { createServer, type Server } from 'node:http';
import Provider from 'oidc-provider';
import { freePort } from '../_process.ts';

export interface IdpUser {
  email: string;
  name: string;
  gateway_role?: string;
  team?: string;
}

export interface TestIdp {
  issuer: string;
  clientSecret: string;
  close(): Promise<void>;
}

export async function startIdp(options: { redirectUri: string; users: Record<string, IdpUser> }): Promise<TestIdp> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientSecret = 'idp-client-secret-0123456789abcdef';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'gateway-console',
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    claims: { openid: ['sub'], email: ['email'], profile: ['name', 'gateway_role', 'team'] },
    cookies: { keys: ['idp-cookie-key-0123456789'] },
    features: { devInteractions: { enabled: true } },
    findAccount: async (_ctx: unknown, sub: string) => {
      const user = options.users[sub];
      if (!user) return undefined;
      return { accountId: sub, claims: () => ({ sub, ...user }) };
    },
  });
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    issuer,
    clientSecret,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
