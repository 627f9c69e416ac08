import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from './password.ts';

const run = promisify(execFile);
const ROOT = process.cwd();

async function cli(script: string, args: string[], env: Record<string, string> = {}, cwd = ROOT) {
  try {
    // The repo's own tsx binary (what `npx tsx` resolves to), so that it also runs from a temp cwd.
    const { stdout, stderr } = await run(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, script), ...args], {
      cwd,
      env: { ...process.env, GATEWAY_CONFIG: '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const ours = (text: string) => text.split('\n').filter(Boolean);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'gw-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('npm run validate', () => {
  it('exits 0 and prints ok for the sample gateway.yaml (the default path)', async () => {
    const r = await cli('src/cli/validate.ts', []);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('ok: gateway.yaml');
  }, 30_000);

  it('exits 1 with one located line per problem', async () => {
    const file = path.join(dir, 'gateway.yaml');
    await writeFile(file, 'providers:\n  - id: mock\n    type: openai\n    endpoint: ${NOPE_URL:-http://x/v1}\n    extra: 1\n');
    const r = await cli('src/cli/validate.ts', ['gateway.yaml'], {}, dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(ours(r.stderr)).toEqual([
      'gateway.yaml:3:11 providers[0].type must be one of compat, vendor_b, vendor_c, vendor_d, custom',
      'gateway.yaml:5:5 providers[0].extra is not a known field',
    ]);
  }, 30_000);

  it('reads GATEWAY_CONFIG when no path is given', async () => {
    const file = path.join(dir, 'other.yaml');
    await writeFile(file, 'pipeline: [auth]\n');
    const r = await cli('src/cli/validate.ts', [], { GATEWAY_CONFIG: file });
    expect(r.code).toBe(1);
    expect(ours(r.stderr)).toEqual([`${file}:1:12 pipeline[0] must be \`upstream\`: the pipeline has to end with the upstream step`]);
  }, 30_000);
});

describe('npm run validate: step order', () => {
  it('refuses a step listed before one it must run after, at its place in the file', async () => {
    const file = path.join(dir, 'order.yaml');
    await writeFile(file, 'pipeline: [log, auth, rate-limit, route, upstream]\n');
    const r = await cli('src/cli/validate.ts', [file]);
    expect(r.code).toBe(1);
    expect(ours(r.stderr)).toEqual([
      `${file}:1:23 pipeline[2] "rate-limit" must run after "route" (listed at pipeline[3]): provider quotas need the routed provider (checked in the same atomic call as the rates)`,
    ]);
  }, 30_000);
});

describe('npm run hash-key / hash-password', () => {
  it('prints the sha256 key hash, from an argument', async () => {
    const r = await cli('src/cli/hash-key.ts', ['sk-bf-demo-0000000000000000000000000000']);
    expect(r.stdout.trim()).toBe('sha256:f6ac88c55c9d07d2a09b6dcfb38a6f327ba04d4744bdebe1b3abc4008a5ab60e');
  }, 30_000);

  it('prints a PHC scrypt hash that verifies', async () => {
    const r = await cli('src/cli/hash-password.ts', ['s3cret!']);
    expect(r.code).toBe(0);
    expect(await verifyPassword('s3cret!', r.stdout.trim())).toBe(true);
  }, 30_000);
});
