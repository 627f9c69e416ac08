import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransport, splitUrl, type CallSignal } from './transport.ts';

class TestSignal extends EventEmitter implements CallSignal {
  aborted = false;
  reason: unknown = new Error('stopped by the test');
  abort() {
    this.aborted = true;
    this.emit('abort');
  }
}

let server: Server;
let base: string;
const closed: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/json') {
        res.writeHead(201, { 'content-type': 'application/json', 'retry-after': '3' });
        res.end(JSON.stringify({ echo: req.headers['x-test'] }));
      } else if (req.url === '/big') {
        // 1 MiB in 64 KiB writes: more than the body keeps buffered before it pauses.
        const chunk = Buffer.alloc(64 * 1024, 'a');
        for (let i = 0; i < 16; i++) res.write(chunk);
        res.end();
      } else if (req.url === '/hang') {
        res.writeHead(200);
        res.write('first');
        res.on('close', () => closed.push('hang'));
      } else {
        res.writeHead(404).end('missing');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const call = (path: string, signal = new TestSignal()) => ({
  url: `${base}${path}`,
  headers: { 'x-test': 'hello' },
  body: '{}',
  signal,
  connectTimeoutMs: 1000,
  headersTimeoutMs: 1000,
  idleTimeoutMs: 1000,
});

describe('splitUrl', () => {
  it('splits origin and path, keeping the query', () => {
    expect(splitUrl('https://api.example.com/v1/chat?x=1')).toEqual({ origin: 'https://api.example.com', path: '/v1/chat?x=1' });
    expect(splitUrl('http://h:8080')).toEqual({ origin: 'http://h:8080', path: '/' });
    expect(splitUrl('http://h:8080?x=1')).toEqual({ origin: 'http://h:8080', path: '/?x=1' });
  });
});

describe('transport', () => {
  const transport = createTransport();
  afterAll(() => transport.close());

  it('returns status, lower-cased headers and the JSON body', async () => {
    const reply = await transport.send(call('/json'));
    expect(reply.status).toBe(201);
    expect(reply.headers['retry-after']).toBe('3');
    expect(await reply.body.json()).toEqual({ echo: 'hello' });
  });

  it('reads a body larger than its buffer whole, as text or chunk by chunk', async () => {
    const whole = await transport.send(call('/big'));
    expect((await whole.body.text()).length).toBe(1024 * 1024);
    const streamed = await transport.send(call('/big'));
    let size = 0;
    for await (const chunk of streamed.body) {
      size += chunk.byteLength;
      await new Promise((resolve) => setImmediate(resolve)); // a slow reader: the socket pauses
    }
    expect(size).toBe(1024 * 1024);
  });

  it('refuses a second read of the same body', async () => {
    const reply = await transport.send(call('/json'));
    await reply.body.text();
    await expect(reply.body.text()).rejects.toThrow(/already read/);
  });

  it('aborts a call in flight with the signal reason, closing the upstream request', async () => {
    const signal = new TestSignal();
    const reply = await transport.send(call('/hang', signal));
    const reading = reply.body.text();
    signal.abort();
    await expect(reading).rejects.toThrow('stopped by the test');
    await expect.poll(() => closed.includes('hang')).toBe(true);
  });

  it('rejects at once when the signal has already fired', async () => {
    const signal = new TestSignal();
    signal.abort();
    await expect(transport.send(call('/json', signal))).rejects.toThrow('stopped by the test');
  });

  it('a reader leaving a stream early frees the call', async () => {
    closed.length = 0;
    const reply = await transport.send(call('/hang'));
    for await (const chunk of reply.body) {
      expect(Buffer.from(chunk).toString()).toBe('first');
      break;
    }
    await expect.poll(() => closed.includes('hang')).toBe(true);
  });

  it('fails with undici\'s connect error when nothing listens', async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    await expect(transport.send({ ...call('/json'), url: `http://127.0.0.1:${port}/json` })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
