/**
 * The gateway's own version. The bundle (dist/main.mjs) has it written in by scripts/build.ts, so
 * it never depends on where the folder sits: reading `../../package.json` from dist/ found the
 * package.json of whatever folder held the checkout (issue 34). From the sources (tsx, tests) it is
 * read from this repository's package.json, two folders up from src/boot/.
 */
import { readFile } from 'node:fs/promises';

/** Replaced by the build (esbuild `define`) with the version string; absent when run from source. */
declare const __GATEWAY_VERSION__: string | undefined;

export async function gatewayVersion(): Promise<string> {
  if (typeof __GATEWAY_VERSION__ === 'string') return __GATEWAY_VERSION__;
  const text = await readFile(new URL('../../package.json', import.meta.url), 'utf8').catch(() => null);
  return text ? (JSON.parse(text) as { version: string }).version : '0.0.0';
}
