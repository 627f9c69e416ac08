/** API keys are stored as `sha256:<hex>` of the full key; the clear key is never kept. */
import { hash } from 'node:crypto';

/**
 * The `key_hash` of an API key, as written in `keys[].key_hash` and used as the lookup index.
 * A plain sha256 suffices: keys are long random strings, not guessable passwords.
 * @example hashApiKey('sk-bf-...') // 'sha256:3f2a...'
 */
export function hashApiKey(key: string): string {
  // crypto.hash is the one-shot form: no Hash object per call (this runs on every request).
  return `sha256:${hash('sha256', key, 'hex')}`;
}
