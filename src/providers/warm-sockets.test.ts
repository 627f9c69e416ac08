import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import buildConnector from 'undici/lib/core/connect.js';
import { createTransport, type CallSignal } from './transport.ts';
import { warmConnector } from './warm-sockets.ts';

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const listening = async <T extends Server | ReturnType<typeof createHttpServer>>(server: T) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** An HTTP upstream that counts the connections it accepted and the requests it answered. */
async function countingUpstream() {
  const seen = { connections: 0, requests: 0 };
  const server = createHttpServer((req, res) => {
    seen.requests++;
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  server.on('connection', () => seen.connections++);
  closers.push(() => server.closeAllConnections());
  return { origin: await listening(server), seen };
}

/** A TCP server keeping the connections it accepted (it never answers). */
async function silentServer() {
  const sockets: Socket[] = [];
  const server = createServer((socket) => void sockets.push(socket.resume()));
  closers.push(() => sockets.forEach((socket) => socket.destroy()));
  return { origin: await listening(server), sockets };
}

const signal = Object.assign(new EventEmitter(), { aborted: false, reason: undefined }) as CallSignal;
const call = (url: string) => ({ url, headers: {}, body: 'hi', signal, connectTimeoutMs: 5_000, headersTimeoutMs: 5_000, idleTimeoutMs: 5_000 });
const closed = (socket: Socket) => new Promise((resolve) => (socket.destroyed ? resolve(undefined) : socket.once('close', resolve)));

describe('connections opened ahead', () => {
  it('are bare (no request is sent), and the first calls use them instead of opening their own', async () => {
    const upstream = await countingUpstream();
    const transport = createTransport();
    closers.push(() => transport.close());
    expect(await transport.preconnect!(upstream.origin, 5_000, 3)).toBe(3);
    // The client side is connected a moment before the server has accepted.
    await vi.waitFor(() => expect(upstream.seen).toEqual({ connections: 3, requests: 0 }));
    const replies = await Promise.all([1, 2, 3].map(async () => (await transport.send(call(`${upstream.origin}/v1/chat/completions`))).body.text()));
    expect(replies).toEqual(['ok', 'ok', 'ok']);
    expect(upstream.seen).toEqual({ connections: 3, requests: 3 });
  });

  it('go to the pool of the connect timeout they were opened for only', async () => {
    const upstream = await countingUpstream();
    const transport = createTransport();
    closers.push(() => transport.close());
    expect(await transport.preconnect!(upstream.origin, 1_234, 1)).toBe(1);
    await (await transport.send(call(`${upstream.origin}/x`))).body.text();
    expect(upstream.seen).toEqual({ connections: 2, requests: 1 });
  });

  it('an upstream that refuses them costs nothing: none open, no error, calls still go out', async () => {
    const transport = createTransport();
    closers.push(() => transport.close());
    const refused = await new Promise<string>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        server.close(() => resolve(url));
      });
    });
    expect(await transport.preconnect!(refused, 5_000, 2)).toBe(0);
    expect(await transport.preconnect!('http://unreachable.invalid', 5_000, 2)).toBe(0);
    const upstream = await countingUpstream();
    expect(await (await transport.send(call(`${upstream.origin}/x`))).body.text()).toBe('ok');
  });

  it('one the upstream closed is not handed to a call', async () => {
    const upstream = await countingUpstream();
    const transport = createTransport();
    closers.push(() => transport.close());
    const connector = warmConnector(buildConnector({ timeout: 5_000 }));
    closers.push(() => connector.close());
    const { origin, sockets } = await silentServer();
    expect(await connector.open(origin, 2)).toBe(2);
    await vi.waitFor(() => expect(sockets).toHaveLength(2));
    sockets.forEach((socket) => socket.destroy());
    await vi.waitFor(() => expect(connector.waiting(origin)).toBe(0));
    const handed = await new Promise<Socket | null>((resolve) => {
      const url = new URL(origin);
      connector.connect({ protocol: url.protocol, host: url.host, hostname: url.hostname, port: url.port }, (_error, socket) => resolve(socket));
    });
    // A fresh connection: the two opened ahead were closed by the upstream and dropped.
    expect(handed).not.toBeNull();
    await vi.waitFor(() => expect(sockets).toHaveLength(3));
    handed!.destroy();
    expect(upstream.seen.requests).toBe(0);
  });

  it('are closed when nobody took them in time, and when the transport closes', async () => {
    const { origin, sockets } = await silentServer();
    const connector = warmConnector(buildConnector({ timeout: 5_000 }), 20);
    expect(await connector.open(origin, 2)).toBe(2);
    await vi.waitFor(() => expect(sockets).toHaveLength(2));
    await Promise.all(sockets.map(closed));

    const transport = createTransport();
    expect(await transport.preconnect!(origin, 5_000, 2)).toBe(2);
    await vi.waitFor(() => expect(sockets).toHaveLength(4));
    await transport.close();
    await Promise.all(sockets.slice(2).map(closed));
  });
});
