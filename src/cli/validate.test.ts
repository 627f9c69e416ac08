import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = process.cwd();

/** `npm run validate -- <file>` from `dir` (the repo's tsx, as npm would run it). */
async function validate(file: string, dir: string) {
  try {
    const { stdout, stderr } = await run(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, 'src/cli/validate.ts'), file], {
      cwd: dir,
      env: { ...process.env, GATEWAY_CONFIG: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const lines = (text: string) => text.split('\n').filter(Boolean);

// A custom plugin in TypeScript (loaded as the gateway loads it) with an options schema and an order rule.
const TAGGER = `export default {
  name: 'tagger',
  failure: 'closed' as const,
  after: { route: 'it reads ctx.targets' },
  schema: { type: 'object', additionalProperties: false, required: ['tag'], properties: { tag: { type: 'string' } } },
  setup: () => ({}),
};
`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'gw-validate-'));
  await writeFile(path.join(dir, 'tagger.ts'), TAGGER);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function check(name: string, pipeline: string) {
  await writeFile(path.join(dir, name), `pipeline:\n${pipeline}`);
  return validate(name, dir);
}

describe('npm run validate checks pipeline: as startup does', () => {
  it('accepts a file whose custom plugin loads, is in order and has valid options', async () => {
    const r = await check('good.yaml', '  - auth\n  - route\n  - name: tagger\n    module: ./tagger.ts\n    options: { tag: x }\n  - upstream\n');
    expect(r).toMatchObject({ code: 0, stdout: 'ok: good.yaml\n' });
  }, 30_000);

  it('refuses invalid options of a custom plugin and of a built-in, naming file:line:col and the option', async () => {
    const r = await check(
      'options.yaml',
      '  - auth\n  - route\n  - name: tagger\n    module: ./tagger.ts\n    options: { tag: 5, bogus: true }\n  - { name: cache, options: { ttl_seconds: -1 } }\n  - upstream\n',
    );
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      'options.yaml:6:21 pipeline[2].options.tag must be string',
      'options.yaml:6:24 pipeline[2].options.bogus is not a known option',
      'options.yaml:7:44 pipeline[3].options.ttl_seconds must be >= 0',
    ]);
  }, 30_000);

  it("refuses a custom plugin listed before a step its `after:` rule names", async () => {
    const r = await check('order.yaml', '  - auth\n  - name: tagger\n    module: ./tagger.ts\n    options: { tag: x }\n  - route\n  - upstream\n');
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual(['order.yaml:3:5 pipeline[1] "tagger" must run after "route" (listed at pipeline[2]): it reads ctx.targets']);
  }, 30_000);

  it('reports a module that cannot be loaded at its `module:`', async () => {
    const r = await check('missing.yaml', '  - auth\n  - { name: gone, module: ./gone.ts }\n  - upstream\n');
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([expect.stringMatching(/^missing\.yaml:3:27 pipeline\[1\]\.module cannot load module '\.\/gone\.ts': .*gone\.ts/)]);
  }, 30_000);
});
