import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../kernel/errors.ts';
import { readJson } from './read-body.ts';

/** A Request as srvx hands it over: web headers over the Node request (`runtime.node.req`). */
function srvxLike(req: IncomingMessage): Request {
  const headers = new Headers(req.headers as Record<string, string>);
  return { headers, bodyUsed: false, body: null, runtime: { node: { req } } } as unknown as Request;
}

let server: Server;
let port: number;
const LIMIT = 1000;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    if (req.url === '/wait') await new Promise((resolve) => setTimeout(resolve, 50)); // whole body buffered by now
    try {
      const { value, text } = await readJson(srvxLike(req), LIMIT);
      res.end(JSON.stringify({ value, text, complete: req.complete }));
    } catch (error) {
      const e = error as GatewayError;
      res.statusCode = e.status ?? 500;
      res.end(JSON.stringify({ code: e.code }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

/** POST `parts` with `gapMs` between them (chunked, no Content-Length). */
function post(path: string, parts: string[], gapMs = 0): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port, path, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c)).on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(data) }));
    });
    req.on('error', reject);
    (async () => {
      for (const part of parts) {
        req.write(part);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
      req.end();
    })();
  });
}

describe('readJson', () => {
  it('takes a body that arrived whole straight from the buffer, text as received', async () => {
    const text = '{ "a": [1, 2] }';
    const { status, body } = await post('/wait', [text]);
    expect(status).toBe(200);
    expect(body).toEqual({ value: { a: [1, 2] }, text, complete: true });
  });

  it('waits for a body that arrives in pieces', async () => {
    const { body } = await post('/', ['{"a":', '"slow"', '}'], 30);
    expect(body).toMatchObject({ value: { a: 'slow' }, text: '{"a":"slow"}' });
  });

  it('refuses an oversized body with 413, whether buffered or still arriving', async () => {
    const big = JSON.stringify({ x: 'y'.repeat(LIMIT) });
    expect(await post('/wait', [big])).toEqual({ status: 413, body: { code: 'body_too_large' } });
    expect(await post('/', [big.slice(0, 600), big.slice(600)], 30)).toEqual({ status: 413, body: { code: 'body_too_large' } });
  });

  it('400 for malformed or empty JSON', async () => {
    expect(await post('/wait', ['{"a":'])).toMatchObject({ status: 400 });
    expect(await post('/wait', [])).toMatchObject({ status: 400 });
  });
});
