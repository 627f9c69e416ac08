/**
 * The OAuth signing keys (JWKS) and cookie keys. Generated once and kept in
 * `GATEWAY_DATA_DIR/oauth-jwks.json` (mode 0600) so that tokens, ID tokens and interaction
 * cookies survive restarts and are shared by the cluster workers of one machine. Instances on
 * one Redis share one set through the state store (shared-keys.ts), sealed under
 * GATEWAY_MASTER_KEY: a sign-in started on one instance goes on on any other. What this file
 * loads is the set at start; key-sync.ts keeps the instances on one set while they run.
 */
import { createHash, generateKeyPair, randomUUID } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makePrivateDir } from '../../kernel/private-files.ts';
import type { Logger } from '../../kernel/logger.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import { keysInForce, type Jwks } from './jwks.ts';
import { sharedJwks } from './shared-keys.ts';

const generate = promisify(generateKeyPair);

export { keysInForce, type Jwks } from './jwks.ts';

export interface OAuthKeys {
  /** The provider's `jwks`: the keys in force, the signing one first. */
  jwks: Jwks;
  /**
   * Signing keys of the provider's cookies, one per key of `jwks` in the same order (derived from
   * the private key, never stored apart): the first signs, the others still verify.
   */
  cookieKeys: string[];
}

async function newJwks(): Promise<Jwks> {
  const { privateKey } = await generate('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  return { keys: [{ ...jwk, kid: randomUUID(), use: 'sig', alg: 'RS256' }] };
}

/** The provider's keys for `jwks` at `now`. */
export function toKeys(jwks: Jwks, now = Date.now()): OAuthKeys {
  const keys = keysInForce(jwks, now);
  const cookieKeys = keys.map((key) => {
    const secret = String(key.d ?? '');
    if (!secret) throw new Error('the OAuth key set holds no private key');
    return createHash('sha256').update(`gateway-oauth-cookies:${secret}`).digest('base64url');
  });
  return { jwks: { keys }, cookieKeys };
}

/** The key file's set, or null when there is none yet. */
async function readKeyFile(file: string): Promise<Jwks | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Jwks;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return null;
  }
}

/**
 * Writes `jwks` as the key file unless one exists, and returns the file's set. Creation is
 * exclusive (write a temp file, then hard-link it into place) so concurrent workers end up on one.
 */
async function createKeyFile(dataDir: string, file: string, jwks: Jwks): Promise<Jwks> {
  await makePrivateDir(dataDir);
  const temp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(temp, JSON.stringify(jwks), { mode: 0o600 });
  try {
    await link(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  return JSON.parse(await readFile(file, 'utf8')) as Jwks;
}

/**
 * Loads the key set, creating it on first start. Without Redis, or without a master key to seal
 * it with, from the key file; with both, the set shared in the state store, which the first
 * instance fills from its key file when it has one (so keys in use never change) or with new keys.
 * The provider's keys are `toKeys(set)`.
 */
export async function loadOAuthKeys(runtime: Pick<Runtime, 'dataDir' | 'store' | 'masterKey'>, logger: Logger): Promise<Jwks> {
  const { dataDir, store, masterKey } = runtime;
  const file = join(dataDir, 'oauth-jwks.json');
  const fromFile = async () => (await readKeyFile(file)) ?? (await createKeyFile(dataDir, file, await newJwks()));
  if (store.kind !== 'redis') return fromFile();
  if (!masterKey) {
    logger.warn(`REDIS_URL without GATEWAY_MASTER_KEY: the OAuth keys stay in ${file}, which every instance must share (a copy of one file), or a sign-in started on one instance fails on another`);
    return fromFile();
  }
  if (!store.healthy) {
    logger.warn(`Redis unreachable at start: the OAuth keys come from ${file} until Redis answers, then this instance joins the set shared through it`);
    return fromFile();
  }
  const local = await readKeyFile(file);
  const jwks = await sharedJwks(store, masterKey, async () => local ?? (await newJwks()), logger);
  // The file keeps the signing key only: a key kept to verify is the shared set's business.
  if (!local) await createKeyFile(dataDir, file, { keys: jwks.keys.slice(0, 1) });
  else if (local.keys[0]?.kid !== jwks.keys[0]?.kid) logger.warn(`${file} differs from the OAuth keys shared through Redis: using the shared ones`);
  return jwks;
}
