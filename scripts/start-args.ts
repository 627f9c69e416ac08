/**
 * The node flags `npm start` runs the gateway with, read from package.json's `start` script, so
 * that the bench and the process tests run the gateway exactly as `npm start` does.
 */
import { readFileSync } from 'node:fs';

const ROOT_PACKAGE = new URL('../package.json', import.meta.url);

/** The arguments between `node` and the entry of the start script, e.g. `['--import', 'tsx']`. */
export function startNodeFlags(): string[] {
  const start: string = JSON.parse(readFileSync(ROOT_PACKAGE, 'utf8')).scripts.start;
  const words = start.trim().split(/\s+/);
  if (words[0] !== 'node') throw new Error(`package.json start script does not run node: ${start}`);
  return words.slice(1, -1);
}
