/**
 * `npm run build` (run by `npm start` first, and by the tests before they spawn the gateway):
 * bundle the gateway's sources into dist/ with esbuild, one file for the server and one for
 * the SQLite log worker thread, packages left as imports of node_modules.
 *
 * Why a build when tsx can run the sources: tsx compiles every module with esbuild's
 * `keepNames`, which wraps each function created at run time in a `__name(fn, "…")` call, and
 * the gateway creates closures on every request. The bundle served the bench ~14 % fewer CPU
 * microseconds per request (bench/README.md). `npm start` still loads tsx, so that custom
 * plugins written in TypeScript load as before.
 *
 * It also builds the web console (console/, Preact + uPlot) with Vite into dist/console, which the
 * gateway serves under /console: content-hashed asset names, so they can be cached for a year.
 */
import { build } from 'esbuild';
import { build as viteBuild } from 'vite';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Writes dist/main.mjs and dist/sqlite-worker.mjs (with source maps, without sources) under `root`. */
export async function buildGateway(root = ROOT): Promise<void> {
  // The version is written into the bundle: read at run time, `../package.json` from dist/ could
  // be a parent folder's file when the checkout has none beside dist/ (src/boot/version.ts).
  const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
  await build({
    absWorkingDir: root,
    entryPoints: { main: 'src/main.ts', 'sqlite-worker': 'src/features/logs/sqlite-worker.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Maps without the sources: stack traces still name src/ files and lines, and the image ships
    // no TypeScript (the maps held every source file in full).
    sourcemap: true,
    sourcesContent: false,
    logLevel: 'warning',
    define: { __GATEWAY_VERSION__: JSON.stringify(version) },
  });
  for (const file of ['dist/main.mjs', 'dist/sqlite-worker.mjs']) await assertAscii(join(root, file));
}

/**
 * The bundle must stay ASCII. esbuild escapes what strings and names hold (its default charset),
 * but not comments, and V8 keeps a module's source for as long as the module lives: one
 * character past Latin-1 anywhere in it (a `…` in a comment) made the whole 0.5 MB held as
 * UTF-16, twice the memory (bench/README.md, issue 18).
 */
async function assertAscii(file: string): Promise<void> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  const bad = lines.findIndex((line) => /[^\x00-\x7f]/.test(line));
  if (bad !== -1) {
    throw new Error(`${file}:${bad + 1} holds a non-ASCII character (write it as ASCII in the source): ${lines[bad]!.trim().slice(0, 120)}`);
  }
}

/** Writes the console's static files to dist/console under `root`. */
export async function buildConsole(root = ROOT): Promise<void> {
  await viteBuild({
    configFile: false,
    root: join(root, 'console'),
    base: '/console/',
    logLevel: 'warn',
    esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
    build: {
      outDir: join(root, 'dist/console'),
      emptyOutDir: true,
      target: 'es2022',
      // Every browser that runs the console supports modulepreload: no polyfill to ship.
      modulePreload: { polyfill: false },
      // The CSP forbids inline script and style: keep even small assets as files.
      assetsInlineLimit: 0,
      reportCompressedSize: false,
    },
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildGateway();
  await buildConsole();
}
