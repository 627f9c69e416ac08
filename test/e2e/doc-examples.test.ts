/**
 * The runnable examples of the docs (```ts run, ```js run, ```sh run: src/cli/doc-examples.ts) run
 * against a gateway serving the sample gateway.yaml with the mock upstream behind it, as the quick
 * start has it: each must exit 0.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docExamples } from '../../src/cli/doc-examples.ts';
import { startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';

const run = promisify(execFile);
const ROOT = resolve('.');
const examples = docExamples(ROOT).filter((example) => example.mark === 'run');
const EXTENSIONS: Record<string, string> = { ts: 'ts', js: 'mjs', sh: 'sh' };

let mock: MockUpstream;
let gw: TestGateway;
let dir: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  gw = await startTestGateway('../../gateway.yaml', { MOCK_UPSTREAM_URL: `${mock.url}/v1` });
  // Inside the repository, so that the examples' imports (openai, ...) resolve from node_modules.
  dir = await mkdtemp(join(ROOT, '.doc-examples-'));
});
afterAll(async () => {
  await gw?.close();
  await mock?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('runnable examples of the docs', () => {
  it('finds the marked ones, in a language it runs', () => {
    expect(examples.length).toBeGreaterThan(0);
    expect(examples.filter((example) => !EXTENSIONS[example.lang]).map((e) => `${e.file}:${e.line} ${e.lang}`)).toEqual([]);
  });

  it.each(examples.map((example) => [`${example.file}:${example.line}`, example] as const))('%s runs against the sample gateway', async (name, example) => {
    const file = join(dir, `${name.replace(/[^\w]+/g, '-')}.${EXTENSIONS[example.lang]}`);
    // A curl that fails on an HTTP error, as a reader would notice one.
    const prelude = example.lang === 'sh' ? 'curl() { command curl --silent --show-error --fail-with-body "$@"; }\n' : '';
    await writeFile(file, prelude + example.code.replaceAll('http://localhost:8080', gw.url));
    const [command, args] = example.lang === 'sh' ? ['bash', ['-e', file]] : [process.execPath, ['--import', 'tsx', file]];
    const { stdout } = await run(command, args, { cwd: ROOT, timeout: 20_000 });
    expect(stdout.length).toBeGreaterThan(0);
    expect(mock.requests.length).toBeGreaterThan(0);
  });
});
