import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../kernel/errors.ts';
import { CONSOLE_CSP, createStaticHandler } from './static.ts';

let dir: string;
const script = `console.log(${JSON.stringify('x'.repeat(4000))});`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'console-static-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>console</title>');
  await writeFile(join(dir, 'assets/index-abc123.js'), script);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const get = (path: string, headers: Record<string, string> = {}) => new Request(`http://gw${path}`, { headers });

async function thrown(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(GatewayError.is(error)).toBe(true);
  return error as GatewayError;
}

describe('console static files', () => {
  const serve = () => createStaticHandler(dir);

  it('answers the page for any console path, never cached, with the CSP', async () => {
    const handler = serve();
    for (const path of ['/console', '/console/', '/console/logs/req_1']) {
      const response = await handler(get(path));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(await response.text()).toContain('<title>console</title>');
    }
  });

  it('caches hashed assets for a year and gzips them when asked', async () => {
    const response = await serve()(get('/console/assets/index-abc123.js', { 'accept-encoding': 'gzip, br' }));
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('content-security-policy')).toBeNull();
    expect(gunzipSync(Buffer.from(await response.arrayBuffer())).toString()).toBe(script);
    const plain = await serve()(get('/console/assets/index-abc123.js'));
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(script);
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const handler = serve();
    const first = await handler(get('/console/assets/index-abc123.js'));
    const again = await handler(get('/console/assets/index-abc123.js', { 'if-none-match': first.headers.get('etag')! }));
    expect(again.status).toBe(304);
  });

  it('refuses a missing asset with 404 instead of answering the page', async () => {
    const error = await thrown(serve()(get('/console/assets/index-old.js')));
    expect(error.status).toBe(404);
  });

  it('serves nothing outside its folder', async () => {
    const response = await serve()(get('/console/%2e%2e/%2e%2e/etc/passwd'));
    expect(await response.text()).toContain('<title>console</title>');
  });

  it('says how to build the console when it is not built', async () => {
    const error = await thrown(createStaticHandler(join(dir, 'missing'))(get('/console/')));
    expect(error.status).toBe(404);
    expect(error.code).toBe('console_not_built');
  });
});
