import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfigText } from '../config/load.ts';
import type { GatewayConfig } from '../config/types.ts';
import { createLogger } from '../kernel/logger.ts';
import { createTransport, type Transport } from '../providers/transport.ts';
import { DEFAULT_PRECONNECT, preconnectCountFrom, preconnectUpstreams, upstreamOrigins } from './preconnect.ts';

const logger = createLogger('error');

function configOf(value: object): GatewayConfig {
  const loaded = loadConfigText(JSON.stringify(value), '(test)', {});
  if (!loaded.ok) throw new Error(loaded.problems.map((p) => p.message).join('; '));
  return loaded.config;
}

const provider = (id: string, endpoint: string, extra: object = {}) => ({ id, name: id, type: 'compat', endpoint, api_key: 'k', models: [], ...extra });
const model = (id: string, providerId: string, extra: object = {}) => ({ id, name: id, provider: providerId, context_length: 8192, input_price: 0, output_price: 0, ...extra });

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A TCP server that accepts and never says a word: to a TLS client, an upstream whose handshake never ends. */
async function silentServer() {
  const sockets: Socket[] = [];
  const server = createServer((socket) => void sockets.push(socket.resume()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)), () => sockets.forEach((s) => s.destroy()));
  return { port: (server.address() as AddressInfo).port, sockets };
}

describe('the upstreams a start connects to ahead', () => {
  it("are the origins the active models' calls go to, each with its connect timeout", () => {
    const config = configOf({
      timeouts: { connect: 3000 },
      providers: [
        provider('a', 'https://api.example.com/v1'),
        provider('b', 'http://10.0.0.7:8080/openai', { timeouts: { connect: 500 } }),
        provider('off', 'https://off.example.com', { status: 'inactive' }),
        provider('unused', 'https://unused.example.com'),
      ],
      models: [
        model('m1', 'a'),
        model('m2', 'a', { endpoint: 'https://eu.example.com/v1', deployments: [{ provider: 'b' }] }),
        model('m3', 'b', { timeouts: { connect: 700 } }),
        model('m4', 'off'),
        model('m5', 'unused', { status: 'inactive' }),
      ],
    });
    expect(upstreamOrigins(config)).toEqual([
      { origin: 'https://api.example.com', connectTimeoutMs: 3000 },
      { origin: 'https://eu.example.com', connectTimeoutMs: 3000 },
      { origin: 'http://10.0.0.7:8080', connectTimeoutMs: 500 },
      { origin: 'http://10.0.0.7:8080', connectTimeoutMs: 700 },
    ]);
  });

  it('GATEWAY_UPSTREAM_PRECONNECT sets how many per origin (0: none); anything else stops the start', () => {
    expect(preconnectCountFrom({})).toBe(DEFAULT_PRECONNECT);
    expect(preconnectCountFrom({ GATEWAY_UPSTREAM_PRECONNECT: '0' })).toBe(0);
    expect(preconnectCountFrom({ GATEWAY_UPSTREAM_PRECONNECT: '16' })).toBe(16);
    for (const bad of ['-1', '65', '2.5', 'many']) expect(() => preconnectCountFrom({ GATEWAY_UPSTREAM_PRECONNECT: bad })).toThrow(/whole number/);
  });

  it('an upstream whose connections never complete does not hold the start past its short wait', async () => {
    const { port, sockets } = await silentServer();
    const transport = createTransport();
    // A connect timeout far longer than the test's own: only the start's own wait can end this.
    const config = configOf({ timeouts: { connect: 60_000 }, providers: [provider('p', `https://127.0.0.1:${port}`)], models: [model('m', 'p')] });
    expect(await preconnectUpstreams(transport, config, logger, 2)).toBe(0);
    // One connection tried: the others wait for it.
    await vi.waitFor(() => expect(sockets).toHaveLength(1));
    // ...and closing the transport ends them instead of leaving them to their timeout.
    await transport.close();
    await Promise.all(sockets.map((socket) => new Promise((resolve) => (socket.destroyed ? resolve(undefined) : socket.once('close', resolve)))));
  });

  it('a transport that cannot connect ahead, or a count of 0, opens nothing', async () => {
    const config = configOf({ providers: [provider('p', 'http://127.0.0.1:9')], models: [model('m', 'p')] });
    const preconnect = vi.fn(async (_origin: string, _timeout: number, count: number) => count);
    const bare: Transport = { send: async () => Promise.reject(new Error('unused')), close: async () => {} };
    expect(await preconnectUpstreams(bare, config, logger, 4)).toBe(0);
    expect(await preconnectUpstreams({ ...bare, preconnect }, config, logger, 0)).toBe(0);
    expect(preconnect).not.toHaveBeenCalled();
  });

  it('opens one connection to an origin first, the rest only once that one opened', async () => {
    const config = configOf({
      providers: [provider('down', 'https://down.example.com'), provider('up', 'https://up.example.com')],
      models: [model('m1', 'down'), model('m2', 'up')],
    });
    const preconnect = vi.fn(async (origin: string, _timeout: number, count: number) => (origin.includes('down') ? 0 : count));
    const transport: Transport = { send: async () => Promise.reject(new Error('unused')), close: async () => {}, preconnect };
    expect(await preconnectUpstreams(transport, config, logger, 4)).toBe(4);
    expect(preconnect.mock.calls).toEqual([
      ['https://down.example.com', 10_000, 1],
      ['https://up.example.com', 10_000, 1],
      ['https://up.example.com', 10_000, 3],
    ]);
  });
});
