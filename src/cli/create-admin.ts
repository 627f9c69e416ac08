/**
 * `npm run create-admin -- --email you@example.com [--name "Your Name"] [--config gateway.yaml]`:
 * the first admin in one step. Adds an admin account to gateway.yaml through the management API's
 * own write-back (config/write: the item appended through the yaml Document API, comments and the
 * rest of the file kept, the result validated like a hand edit and written atomically), so a
 * running gateway takes it in at its next reload (file watch or SIGHUP). The password is generated
 * and printed once (only its scrypt hash is written); `--password-stdin` reads one instead. An email
 * that already has an account is refused, in any case.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { text } from 'node:stream/consumers';
import { parseArgs } from 'node:util';
import { openConfig } from '../config/holder.ts';
import { hashPassword } from '../config/password.ts';
import { createConfigWriter } from '../config/write/write-back.ts';
import { createLogger } from '../kernel/logger.ts';
import { createMemoryStore } from '../store/memory.ts';
import { uniqueSlug } from '../features/admin/crud.ts';

const MIN_PASSWORD = 8;
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;
const USAGE = 'usage: npm run create-admin -- --email <address> [--name <name>] [--config <gateway.yaml>] [--password-stdin]';

function fail(message: string, code = 1): never {
  console.error(message);
  process.exit(code);
}

const { values } = parseArgs({
  options: {
    email: { type: 'string' },
    name: { type: 'string' },
    config: { type: 'string' },
    'password-stdin': { type: 'boolean', default: false },
  },
  strict: true,
});
const email = values.email?.trim() ?? '';
if (!EMAIL.test(email)) fail(`${USAGE}\n--email must be an email address.`, 2);

// Generated: 18 random bytes, 24 characters, nothing a shell or a YAML file would mangle.
const password = values['password-stdin'] ? (await text(process.stdin)).replace(/\r?\n$/, '') : randomBytes(18).toString('base64url');
if (password.length < MIN_PASSWORD) fail(`The password must have at least ${MIN_PASSWORD} characters.`, 2);

const file = resolve(values.config ?? process.env.GATEWAY_CONFIG ?? 'gateway.yaml');
// Warnings of the load (a client's unknown scope...) are the gateway's business, not this command's.
const logger = createLogger('error');
const holder = await openConfig({ file, env: process.env, logger, watch: false, build: async (snapshot) => ({ snapshot }), release: async () => {} }).catch(
  (error: Error) => fail(`Cannot load ${file}: ${error.message}`),
);
const writer = createConfigWriter({ config: holder, store: createMemoryStore() }, logger);
const hash = await hashPassword(password);

try {
  const id = await writer.change((draft) => {
    const accounts = draft.snapshot.config.accounts;
    if (accounts.some((account) => account.email.toLowerCase() === email.toLowerCase())) {
      throw new Error(`an account with the email ${email} already exists in ${file}; nothing was changed.`);
    }
    const local = email.split('@')[0]!;
    // `admin` is the master key's principal, never an account's id.
    const id = uniqueSlug(local, (candidate) => candidate === 'admin' || draft.snapshot.accounts.has(candidate), 'user');
    draft.items.append('accounts', { id, email, name: values.name?.trim() || local, role: 'admin', password_hash: hash, created_at: new Date().toISOString() });
    return id;
  });
  console.log(`Admin account '${id}' (${email}) added to ${file}.`);
  if (!values['password-stdin']) console.log(`Password (shown only now): ${password}`);
  console.log('Sign in at <base URL>/console (http://localhost:8080/console by default) with this email and password.');
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  fail(`Could not add the account: ${message}`);
} finally {
  await holder.close();
}
