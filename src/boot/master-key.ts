/**
 * GATEWAY_MASTER_KEY grants every right, so a guessable one is an open door: the example Secret's
 * `change-me` used to start and answer as admin. Outside development mode a short or well-known
 * key stops the start with a message saying how to make a good one; in development mode
 * (`GATEWAY_DEV_MODE=true`) it is only warned about.
 */
import type { Logger } from '../kernel/logger.ts';

/** Shorter than this is refused: 32 characters is what `openssl rand -hex 16` prints (128 bits). */
export const MIN_MASTER_KEY_LENGTH = 32;

/** Placeholders that examples, tutorials and templates use; compared without case and separators. */
const WELL_KNOWN = ['changeme', 'changethis', 'password', 'secret', 'mastersecret', 'masterkey', 'admin', 'letmein', 'test', 'example', 'default', 'yourmasterkey', 'yoursecret', 'replaceme'];

/** Why `key` is too weak to guard admin rights, or null when it is fine. */
export function masterKeyWeakness(key: string): string | null {
  const folded = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (WELL_KNOWN.some((word) => folded === word || folded.startsWith(word) && folded.length < word.length + 8)) return 'it is a well-known placeholder';
  if (key.length < MIN_MASTER_KEY_LENGTH) return `it is shorter than ${MIN_MASTER_KEY_LENGTH} characters`;
  if (new Set(key).size < 8) return 'it repeats a few characters';
  return null;
}

/**
 * The master key to run with (undefined when unset). Throws outside development mode when it is
 * weak; the message never echoes the key.
 */
export function acceptedMasterKey(env: Record<string, string | undefined>, logger: Logger): string | undefined {
  const key = env.GATEWAY_MASTER_KEY || undefined;
  if (key === undefined) return undefined;
  const weakness = masterKeyWeakness(key);
  if (weakness === null) return key;
  const advice = `GATEWAY_MASTER_KEY is refused: ${weakness}. Generate one with \`openssl rand -hex 32\` (at least ${MIN_MASTER_KEY_LENGTH} characters)`;
  if (env.GATEWAY_DEV_MODE === 'true') {
    logger.warn(`${advice}; accepted because GATEWAY_DEV_MODE=true`);
    return key;
  }
  throw new Error(`${advice}, or set GATEWAY_DEV_MODE=true on a development machine.`);
}
