/**
 * The version the gateway reports is its own, wherever its folder sits: a checkout inside a folder
 * that has a package.json of its own (a monorepo, a home folder with one) used to report that
 * file's version, read as `../../package.json` from dist/ (issue 34).
 */
import { spawn } from 'node:child_process';
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnv, startNodeFlags } from '../../scripts/start-args.ts';
import { freePort, waitHealthy } from '../_process.ts';
import { DEMO_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';

let mock: MockUpstream;
let outer: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  outer = await mkdtemp(join(tmpdir(), 'gw-version-'));
});
afterAll(async () => {
  await mock?.close();
  await rm(outer, { recursive: true, force: true });
});

describe('the reported version', { timeout: 90_000 }, () => {
  it("is the gateway's own, not that of a package.json in the folder around the checkout", async () => {
    const own = (JSON.parse(await readFile('package.json', 'utf8')) as { version: string }).version;
    await writeFile(join(outer, 'package.json'), JSON.stringify({ name: 'monorepo', version: '9.9.9-parent' }));
    // The checkout: the built bundle, its dependencies, and no package.json beside it.
    const checkout = join(outer, 'gateway');
    await mkdir(join(checkout, 'dist'), { recursive: true });
    for (const file of ['main.mjs', 'sqlite-worker.mjs']) await copyFile(resolve('dist', file), join(checkout, 'dist', file));
    await symlink(resolve('node_modules'), join(checkout, 'node_modules'), 'dir');
    await cp(resolve('test/fixtures/chat.yaml'), join(checkout, 'gateway.yaml'));

    const port = await freePort();
    let output = '';
    const child = spawn(process.execPath, [...startNodeFlags(), 'dist/main.mjs'], {
      cwd: checkout,
      env: { ...process.env, ...startEnv(), PORT: String(port), HOST: '127.0.0.1', GATEWAY_CONFIG: join(checkout, 'gateway.yaml'), GATEWAY_DATA_DIR: join(checkout, 'data'), MOCK_URL: `${mock.url}/v1` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exited = new Promise((done) => child.once('exit', done));
    try {
      const url = `http://127.0.0.1:${port}`;
      await waitHealthy({ child, url, exited: exited as Promise<number | null>, output: () => output });
      const status = await (await fetch(`${url}/v1/system/status`, { headers: { authorization: `Bearer ${DEMO_KEY}` } })).json();
      expect(status.version).toBe(own);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
