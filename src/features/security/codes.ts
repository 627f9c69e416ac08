/**
 * One-time code primitives: uniform 6-digit codes, salted hashes, constant-time comparison.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** A uniformly random 6-digit code (leading zeros kept). */
export const newCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

export const newSalt = () => randomBytes(16).toString('hex');

export const hashCode = (code: string, salt: string) => createHash('sha256').update(`${salt}:${code}`).digest('hex');

/** Does `code` match the stored hash? Constant time in the code's value. */
export function codeMatches(code: string, salt: string, hash: string): boolean {
  const actual = Buffer.from(hashCode(code, salt), 'hex');
  const expected = Buffer.from(hash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** `a***@example.com`, `+49******89`: enough to recognise, not to harvest. */
export function maskRecipient(recipient: string): string {
  const at = recipient.indexOf('@');
  if (at > 0) return `${recipient[0]}***${recipient.slice(at)}`;
  if (recipient.length <= 4) return '*'.repeat(recipient.length);
  return `${recipient.slice(0, 3)}${'*'.repeat(recipient.length - 5)}${recipient.slice(-2)}`;
}
