/**
 * scrypt password hashes in PHC string form (`$scrypt$ln=17,r=8,p=1$<salt>$<hash>`, base64 without
 * padding), as stored in `accounts[].password_hash`.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { createHashGate } from '../kernel/hash-gate.ts';

const LN = 17;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
// Stored parameters come from a config file; cap them so a bad entry cannot exhaust memory or CPU.
const MAX_LN = 20;
const MAX_R = 16;
const MAX_P = 4;

/**
 * Process-wide, like the libuv pool and the memory it protects: at most 2 hashes at once (half the
 * default pool of 4), 16 more waiting (~3 s), the rest refused with 503.
 */
const hashing = createHashGate(2, 16);

const PHC = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

function derive(password: string, salt: Buffer, length: number, ln: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** ln;
  // Node's default maxmem (32 MiB) is below the 128 * N * r bytes that ln=17 needs.
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * p + 64 * 1024 * 1024 };
  return hashing.run(
    () => new Promise<Buffer>((resolve, reject) => scrypt(password.normalize('NFKC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key)))),
  );
}

const b64 = (buf: Buffer) => buf.toString('base64').replace(/=+$/, '');

/**
 * Hashes a password with a fresh random salt.
 * @example await hashPassword('s3cret') // '$scrypt$ln=17,r=8,p=1$...$...'
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, KEY_LENGTH, LN, R, P);
  return `$scrypt$ln=${LN},r=${R},p=${P}$${b64(salt)}$${b64(key)}`;
}

/** True when `password` matches the PHC string; false for a wrong password or a malformed hash. */
export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  const m = PHC.exec(phc);
  if (!m) return false;
  const [ln, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (ln < 1 || ln > MAX_LN || r < 1 || r > MAX_R || p < 1 || p > MAX_P) return false;
  const salt = Buffer.from(m[4], 'base64');
  const expected = Buffer.from(m[5], 'base64');
  if (expected.length < 16) return false;
  const actual = await derive(password, salt, expected.length, ln, r, p);
  return timingSafeEqual(actual, expected);
}
