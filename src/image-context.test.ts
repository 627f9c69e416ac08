/**
 * The image is built from a context that .dockerignore trims (tests, suites, test helpers): a
 * source file that the gateway imports but that context leaves out breaks only the container
 * build. Checked here, where every test run sees it.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

/** `src/**​/test-*.ts` → a regex over paths relative to the repository. */
function globToRegex(glob: string): RegExp {
  const pattern = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*\*\//g, '\u0000')
    .replace(/\*/g, '[^/]*')
    .replace(/\u0000/g, '(?:.*/)?');
  return new RegExp(`^${pattern}$`);
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && /\.tsx?$/.test(e.name)).map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

describe('the image build context', () => {
  it('holds every source file the gateway imports (.dockerignore leaves out only tests and their helpers)', async () => {
    const ignore = await readFile(join(ROOT, '.dockerignore'), 'utf8');
    const excluded = ignore
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('src/'))
      .map(globToRegex);
    const isExcluded = (path: string) => excluded.some((re) => re.test(path));
    const shipped = (await sourceFiles(join(ROOT, 'src'))).filter((path) => !isExcluded(path));
    const missing: string[] = [];
    for (const file of shipped) {
      const text = await readFile(join(ROOT, file), 'utf8');
      for (const [, spec] of text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = relative(ROOT, resolve(ROOT, dirname(file), spec!));
        if (isExcluded(target)) missing.push(`${file} imports ${target}`);
      }
    }
    expect(excluded.length).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });
});
