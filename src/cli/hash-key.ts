/**
 * `npm run hash-key -- <key>` (or the key on stdin) prints `sha256:<hex>` for `keys[].key_hash`.
 */
import { text } from 'node:stream/consumers';
import { hashApiKey } from '../config/keys.ts';

const key = process.argv[2] ?? (await text(process.stdin)).trim();
if (!key) {
  console.error('usage: npm run hash-key -- <key>   (or: echo <key> | npm run hash-key)');
  process.exitCode = 2;
} else {
  console.log(hashApiKey(key));
}
