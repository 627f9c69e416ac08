/**
 * The OAuth signing keys (JWKS) and cookie keys. Generated once and kept in
 * `GATEWAY_DATA_DIR/oauth-jwks.json` (mode 0600) so that tokens, ID tokens and interaction
 * cookies survive restarts and are shared by the cluster workers of one machine.
 */
import { createHash, generateKeyPair, randomUUID } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { makePrivateDir } from '../../kernel/private-files.ts';
import { join } from 'node:path';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);

export interface OAuthKeys {
  jwks: { keys: Array<Record<string, unknown>> };
  /** Signing keys of the provider's cookies (derived from the private key, never stored apart). */
  cookieKeys: string[];
}

async function newJwks(): Promise<OAuthKeys['jwks']> {
  const { privateKey } = await generate('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  return { keys: [{ ...jwk, kid: randomUUID(), use: 'sig', alg: 'RS256' }] };
}

function toKeys(jwks: OAuthKeys['jwks']): OAuthKeys {
  const secret = String(jwks.keys[0]?.d ?? '');
  if (!secret) throw new Error('oauth-jwks.json holds no private key');
  const cookieKey = createHash('sha256').update(`gateway-oauth-cookies:${secret}`).digest('base64url');
  return { jwks, cookieKeys: [cookieKey] };
}

/**
 * Loads the keys from `dataDir`, creating them on first start. Creation is exclusive
 * (write a temp file, then hard-link it into place) so concurrent workers end up on one set.
 */
export async function loadOAuthKeys(dataDir: string): Promise<OAuthKeys> {
  const file = join(dataDir, 'oauth-jwks.json');
  try {
    return toKeys(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await makePrivateDir(dataDir);
  const temp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(temp, JSON.stringify(await newJwks()), { mode: 0o600 });
  try {
    await link(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  return toKeys(JSON.parse(await readFile(file, 'utf8')));
}
