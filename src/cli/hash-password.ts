/**
 * `npm run hash-password -- <password>` (or the password on stdin) prints the PHC scrypt string to
 * put in `accounts[].password_hash`. Prefer stdin: arguments end up in shell history.
 */
import { text } from 'node:stream/consumers';
import { hashPassword } from '../config/password.ts';

const password = process.argv[2] ?? (await text(process.stdin)).replace(/\r?\n$/, '');
if (!password) {
  console.error('usage: npm run hash-password -- <password>   (or: echo <password> | npm run hash-password)');
  process.exitCode = 2;
} else {
  console.log(await hashPassword(password));
}
