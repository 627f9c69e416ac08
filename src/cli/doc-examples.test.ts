import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configProblems, docExamples, marked, overSample } from './doc-examples.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SAMPLE = readFileSync(path.join(ROOT, 'gateway.yaml'), 'utf8');
const yamlExamples = docExamples(ROOT).filter((example) => example.mark === 'gateway');

/** The environment the examples see: each `${NAME}` they use set to a placeholder. */
function envFor(text: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [, name] of text.matchAll(/\$\{([A-Z][A-Z0-9_]*)\}/g)) env[name!] = `example-${name!.toLowerCase()}`;
  return env;
}

describe('gateway.yaml examples of the docs (```yaml gateway)', () => {
  it('finds the marked ones', () => {
    expect(yamlExamples.length).toBeGreaterThan(0);
  });

  it.each(yamlExamples.map((example) => [`${example.file}:${example.line}`, example] as const))('%s passes npm run validate', async (_, example) => {
    const text = overSample(SAMPLE, example.code);
    // Read as the sample gateway.yaml, so module paths resolve from the repository root.
    expect(await configProblems(text, path.join(ROOT, 'gateway.yaml'), envFor(text))).toEqual([]);
  });

  it('reports a broken example, as npm run validate would', async () => {
    const text = overSample(SAMPLE, 'models:\n  - { id: x, provider: nowhere }\npipeline: [log, auth, rate-limit, route, upstream]\n');
    const problems = await configProblems(text, path.join(ROOT, 'gateway.yaml'), {});
    expect(problems.join('\n')).toMatch(/nowhere/);
  });

  it('reads the mark from the fence, and leaves unmarked blocks alone', () => {
    const text = ['# t', '```yaml gateway', 'a: 1', '```', '```yaml', 'b: 2', '```', '  ```ts run', '  console.log(1)', '  ```'].join('\n');
    expect(marked(text, 'x.md')).toEqual([
      { file: 'x.md', line: 2, lang: 'yaml', mark: 'gateway', code: 'a: 1\n' },
      { file: 'x.md', line: 8, lang: 'ts', mark: 'run', code: 'console.log(1)\n' },
    ]);
  });
});
