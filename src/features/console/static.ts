/**
 * Serves the console's built files (dist/console, written by `npm run build`) from memory:
 * hashed assets with a year-long immutable cache, the page itself never cached, a strict
 * Content-Security-Policy, and gzip when the browser accepts it. Any other path under /console
 * is a page of the single-page app, so it gets index.html.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { notFound } from '../../kernel/errors.ts';
import { CONSOLE_PATH } from './client.ts';

/**
 * Only the gateway's own origin, no inline script or style, no framing. `img-src data:` is for the
 * TOTP QR code, drawn as an SVG data URL.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';

interface StaticFile {
  type: string;
  body: Buffer;
  gzip: Buffer | null;
  etag: string;
  cache: string;
}

/** dist/console beside the bundle (dist/main.mjs), or from the sources (tsx, tests). */
export function defaultConsoleDir(): string {
  const candidates = [new URL('./console/', import.meta.url), new URL('../../../dist/console/', import.meta.url)];
  const found = candidates.map((url) => fileURLToPath(url)).find((dir) => existsSync(join(dir, 'index.html')));
  return found ?? fileURLToPath(candidates[1]!);
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

async function loadFiles(dir: string): Promise<Map<string, StaticFile>> {
  const { gzipSync } = await import('node:zlib'); // with the first page, not at start
  const files = new Map<string, StaticFile>();
  for (const path of await filesUnder(dir)) {
    const name = relative(dir, path).split(sep).join('/');
    const body = await readFile(path);
    const type = TYPES[extname(name)] ?? 'application/octet-stream';
    const compressible = type.startsWith('text/') || type === 'image/svg+xml' || type === 'application/json';
    files.set(name, {
      type,
      body,
      gzip: compressible && body.length > 1024 ? gzipSync(body) : null,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      // Vite puts a content hash in every name under assets/: such a file never changes.
      cache: name.startsWith('assets/') ? IMMUTABLE : 'no-cache',
    });
  }
  return files;
}

/** A handler for GET/HEAD under /console; the files are read once, on first use. */
export function createStaticHandler(dir = defaultConsoleDir()) {
  let files: Promise<Map<string, StaticFile>> | null = null;

  return async function serveConsole(request: Request): Promise<Response> {
    files ??= existsSync(join(dir, 'index.html')) ? loadFiles(dir) : Promise.resolve(new Map());
    const loaded = await files;
    if (!loaded.size) {
      files = null; // built later (npm run build): look again next time
      throw notFound('The console is not built on this gateway: run `npm run build`.', 'console_not_built');
    }
    const { pathname } = new URL(request.url);
    const name = decodeURIComponent(pathname.slice(CONSOLE_PATH.length)).replace(/^\/+/, '');
    // A missing asset is a 404 (a stale page asking for an old hash), never the page itself.
    if (name.startsWith('assets/') && !loaded.has(name)) throw notFound(`No console file '${name}'.`);
    const file = loaded.get(name) ?? loaded.get('index.html')!;
    return respond(request, file);
  };
}

function respond(request: Request, file: StaticFile): Response {
  const headers = new Headers({
    'content-type': file.type,
    'cache-control': file.cache,
    etag: file.etag,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    vary: 'accept-encoding',
  });
  if (file.type.startsWith('text/html')) {
    headers.set('content-security-policy', CONSOLE_CSP);
    headers.set('x-frame-options', 'DENY');
  }
  if (request.headers.get('if-none-match') === file.etag) return new Response(null, { status: 304, headers });
  const gzip = file.gzip && /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
  if (gzip) headers.set('content-encoding', 'gzip');
  const body = gzip ? file.gzip! : file.body;
  headers.set('content-length', String(body.length));
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
}
