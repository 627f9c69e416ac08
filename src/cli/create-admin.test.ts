import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../config/password.ts';
import { loadConfigFile } from '../config/load.ts';

const run = promisify(execFile);
const ROOT = process.cwd();

/** `npm run create-admin -- <args>` (the repo's tsx, as npm runs it), with `input` on stdin. */
function createAdmin(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, 'src/cli/create-admin.ts'), ...args], { env: { ...process.env, GATEWAY_CONFIG: '' } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(input ?? '');
  });
}

const SAMPLE = `# The team's gateway.
providers:
  - id: mock
    type: compat
    endpoint: http://127.0.0.1:9999/v1   # the mock upstream
    models: [gpt-4o-mini]
accounts:
  # people who sign in
  - id: ops
    email: ops@example.com
    name: Ops
    role: member
`;

let dir: string;
let file: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'gw-create-admin-'));
  file = path.join(dir, 'gateway.yaml');
  await writeFile(file, SAMPLE);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('npm run create-admin', { timeout: 60_000 }, () => {
  it('adds an admin with a generated password, printed once, keeping the file and its comments', async () => {
    const result = await createAdmin(['--email', 'Root@Example.com', '--name', 'Root', '--config', file]);
    expect(result.code).toBe(0);
    const password = /Password \(shown only now\): (\S+)/.exec(result.stdout)?.[1];
    expect(password).toMatch(/^[\w-]{24}$/);
    const text = await readFile(file, 'utf8');
    expect(text.startsWith(SAMPLE)).toBe(true);
    expect(text).not.toContain(password!);
    const loaded = await loadConfigFile(file, {});
    expect(loaded.ok).toBe(true);
    const root = loaded.ok ? loaded.config.accounts.find((a) => a.id === 'root') : undefined;
    expect(root).toMatchObject({ email: 'Root@Example.com', name: 'Root', role: 'admin' });
    expect(await verifyPassword(password!, root!.password_hash!)).toBe(true);
  });

  it('refuses an email that has an account, in any case, and changes nothing', async () => {
    const before = await readFile(file, 'utf8');
    const result = await createAdmin(['--email', 'OPS@example.com', '--config', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('already exists');
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('takes the password from stdin and never prints it; gives a taken id a suffix', async () => {
    const result = await createAdmin(['--email', 'ops@other.example', '--password-stdin', '--config', file], 'a long pass phrase\n');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('a long pass phrase');
    const loaded = await loadConfigFile(file, {});
    const account = loaded.ok ? loaded.config.accounts.find((a) => a.email === 'ops@other.example') : undefined;
    expect(account).toMatchObject({ id: 'ops-2', role: 'admin' });
    expect(await verifyPassword('a long pass phrase', account!.password_hash!)).toBe(true);
  });

  it('refuses a missing or malformed email with the usage', async () => {
    const result = await createAdmin(['--config', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('usage: npm run create-admin');
  });
});
