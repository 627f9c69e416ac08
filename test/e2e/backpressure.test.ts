/**
 * No buffering, end to end: a client that stops reading a stream holds the upstream back
 * (the relay waits for the response to drain, the upstream socket is paused), and one that
 * leaves ends the upstream call. The upstream here honours backpressure itself and counts
 * what it managed to write.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_KEY, startTestGateway, type TestGateway } from '../_setup.ts';
import { drainedOrClosed } from '../mock-upstream/faults.ts';

const EVENT_TEXT = 'x'.repeat(16 * 1024);
const LIMIT = 256 * 1024 * 1024; // far more than every socket buffer on the way can hold

let upstream: Server;
let gw: TestGateway;
const progress = { written: 0, closed: false };

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.on('close', () => (progress.closed = true));
      const event = (content: string) =>
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
      while (progress.written < LIMIT && !res.destroyed) {
        const chunk = event(EVENT_TEXT);
        progress.written += chunk.length;
        if (!res.write(chunk)) await drainedOrClosed(res);
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  gw = await startTestGateway('chat.yaml', { MOCK_URL: `http://127.0.0.1:${port}/v1` });
});

afterAll(async () => {
  await gw?.close();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `read()` once it has not moved for 250 ms (at most 10 s). */
async function settled(read: () => number): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (let last = read(); ; ) {
    await sleep(250);
    const now = read();
    if (now === last || Date.now() > deadline) return now;
    last = now;
  }
}

it('a client that stops reading holds the upstream back, and one that leaves ends the upstream call', async () => {
  const url = new URL(`${gw.url}/api/v1/chat/completions`);
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a long one' }], stream: true });
  const clientRequest = request(url, { method: 'POST', headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' } });
  const response = await new Promise<IncomingMessage>((resolve, reject) => clientRequest.on('response', resolve).on('error', reject).end(body));
  expect(response.statusCode).toBe(200);
  const first = await new Promise<Buffer>((resolve) => response.once('data', resolve));
  response.pause(); // the client stops reading
  expect(first.toString()).toContain('data: ');

  // Whatever the socket buffers on the way hold fills up, then the upstream stops (waited for,
  // not timed: on a loaded machine filling them takes longer), and stays stopped.
  const held = await settled(() => progress.written);
  await sleep(1000);
  expect(progress.written - held).toBeLessThan(1024 * 1024);
  expect(held).toBeLessThan(LIMIT / 4);

  // Reading again lets it flow again.
  response.resume();
  await expect.poll(() => progress.written, { timeout: 10_000 }).toBeGreaterThan(held + 4 * 1024 * 1024);

  // Leaving ends the upstream call.
  response.destroy();
  clientRequest.destroy();
  await expect.poll(() => progress.closed, { timeout: 5000 }).toBe(true);
}, 40_000);
