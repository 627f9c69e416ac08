/**
 * The examples of the documentation, found by a mark on their fence so that the tests run them
 * and the docs cannot drift from the code (issue 36). The mark is the word after the language:
 *
 *   ```yaml gateway     a gateway.yaml, or a part of one: its top-level keys replace those of the
 *                       sample gateway.yaml, and the result must pass `npm run validate`
 *   ```ts run           a script (ts, js or sh) run against a gateway serving the sample
 *   ```js run           gateway.yaml with the mock upstream (test/e2e/doc-examples.test.ts);
 *   ```sh run           it must exit 0. `http://localhost:8080` is replaced by that gateway's address.
 *
 * Unmarked blocks are prose (a Kubernetes rule, an excerpt with placeholders) and are not run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { formatProblem, loadConfigText } from '../config/load.ts';
import { preparePipeline } from '../pipeline/prepare.ts';
import { builtinPlugins } from '../plugins/index.ts';

export interface DocExample {
  /** Relative to the repository root. */
  file: string;
  /** Line of the opening fence. */
  line: number;
  lang: string;
  mark: string;
  code: string;
}

/** README.md and every page under docs/ (generated references included). */
export function docFiles(root: string): string[] {
  const docs = path.join(root, 'docs');
  const pages = readdirSync(docs, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.md'));
  return ['README.md', ...pages.map((name) => path.join('docs', name))];
}

/** The fenced blocks of `text` with a mark after their language. */
export function marked(text: string, file: string): DocExample[] {
  const found: DocExample[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]+)\s+([\w-]+)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang, mark] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j]!.trimStart().startsWith(fence!); j++) body.push(lines[j]!.slice(indent!.length));
    found.push({ file, line: i + 1, lang: lang!, mark: mark!, code: `${body.join('\n')}\n` });
    i = j;
  }
  return found;
}

/** Every marked example of the docs under `root`. */
export function docExamples(root: string): DocExample[] {
  return docFiles(root).flatMap((file) => marked(readFileSync(path.join(root, file), 'utf8'), file));
}

/** `fragment`'s top-level keys over `base` (both YAML texts). */
export function overSample(base: string, fragment: string): string {
  return stringify({ ...(parse(base) as object), ...(parse(fragment) as object) }, { lineWidth: 0 });
}

/**
 * What `npm run validate` reports for config text read as `file` (relative module paths resolve
 * beside it): the schema and cross-reference problems, then the pipeline's (modules loaded, order
 * rules, options). Empty when valid.
 */
export async function configProblems(text: string, file: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const result = loadConfigText(text, file, env);
  if (!result.ok) return result.problems.map(formatProblem);
  const pipeline = await preparePipeline(result.config.pipeline, result.file, builtinPlugins);
  return pipeline.ok ? [] : pipeline.problems.map((p) => `${p.segments.join('.')} ${p.message}`);
}
