/**
 * How `npm start` runs the gateway, read from package.json's `start` script, so that the bench and
 * the process tests run it exactly as `npm start` does: the environment the script sets
 * (`NAME=value` words before `node`) and the node flags.
 */
import { readFileSync } from 'node:fs';

const ROOT_PACKAGE = new URL('../package.json', import.meta.url);
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/;

function startWords(): string[] {
  const start: string = JSON.parse(readFileSync(ROOT_PACKAGE, 'utf8')).scripts.start;
  const words = start.trim().split(/\s+/);
  const node = words.findIndex((word) => !ASSIGNMENT.test(word));
  if (words[node] !== 'node') throw new Error(`package.json start script does not run node: ${start}`);
  return words;
}

/** The variables the start script sets before `node`, e.g. `{ MALLOC_MMAP_THRESHOLD_: '131072' }`. */
export function startEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const word of startWords()) {
    const assignment = ASSIGNMENT.exec(word);
    if (!assignment) break;
    env[assignment[1]!] = assignment[2]!;
  }
  return env;
}

/** The arguments between `node` and the entry of the start script, e.g. `['--import', 'tsx']`. */
export function startNodeFlags(): string[] {
  const words = startWords();
  return words.slice(words.indexOf('node') + 1, -1);
}
