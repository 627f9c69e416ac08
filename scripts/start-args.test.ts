import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startEnv, startNodeFlags } from './start-args.ts';

const start: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts.start;

describe('what npm start runs', () => {
  it('splits the start script into its environment, then the node flags before the entry', () => {
    const words = start.trim().split(/\s+/);
    const node = words.indexOf('node');
    expect(startEnv()).toEqual(Object.fromEntries(words.slice(0, node).map((word) => word.split('=', 2))));
    expect(startNodeFlags()).toEqual(words.slice(node + 1, -1));
    expect(words.at(-1)).toBe('dist/main.mjs');
  });

  it('keeps glibc from holding freed start-up memory (bench/README.md, issue 37, ninth session)', () => {
    expect(startEnv()).toMatchObject({ MALLOC_MMAP_THRESHOLD_: '131072' });
  });
});
