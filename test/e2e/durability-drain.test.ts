/**
 * SIGTERM with a drain deadline: the real process (what `npm start` runs) waits for the requests
 * in flight at most GATEWAY_DRAIN_TIMEOUT_MS, then ends those left (a stream's last event is the
 * `server_shutting_down` error, a call still waiting for its upstream answers 503 with that
 * code), logs and bills them as far as they got, flushes the call log and exits 0, long before a
 * slow stream would have ended (and an orchestrator's SIGKILL with it).
 */
import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchGateway } from '../_durability.ts';
import { DEMO_KEY, MASTER_KEY, startMockUpstream, type MockUpstream } from '../_setup.ts';

const DRAIN_MS = 3000;
let mock: MockUpstream;
let dir: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  dir = await mkdtemp(join(tmpdir(), 'gw-drain-'));
});
afterAll(async () => {
  await mock?.close();
  await rm(dir, { recursive: true, force: true });
});

const launch = (configFile: string) =>
  launchGateway(configFile, mock, { GATEWAY_DATA_DIR: join(dir, 'data'), GATEWAY_DRAIN_TIMEOUT_MS: String(DRAIN_MS), DATABASE_URL: '' });

const chat = (url: string, body: Record<string, unknown>) =>
  fetch(`${url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'tell me a long story' }], ...body }),
  });

describe('SIGTERM with requests that outlast the drain deadline', () => {
  it('ends them at the deadline (stream: server_shutting_down event; waiting call: 503), logs and bills them, exits 0', async () => {
    const configFile = join(dir, `drain-${randomUUID()}.yaml`);
    await cp(resolve('test/fixtures/durability.yaml'), configFile);
    // A slow model: one word every 300 ms of a 200-word answer (a minute); another that thinks for a minute.
    mock.setBehavior('gpt-4o-mini', { chunkDelayMs: 300, reply: Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ') });
    mock.setBehavior('gpt-4o', { delayMs: 60_000 });
    const first = await launch(configFile);

    const stream = await chat(first.url, { model: 'gpt-4o-mini', stream: true });
    expect(stream.status).toBe(200);
    const streamText = stream.text();
    const waiting = chat(first.url, { model: 'gpt-4o' });
    while (mock.requests.length < 2) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 1000)); // a few words are out

    const signalled = Date.now();
    first.child.kill('SIGTERM');
    const [text, answer, code] = await Promise.all([streamText, waiting, first.exited]);
    const tookMs = Date.now() - signalled;
    expect(code).toBe(0);
    expect(tookMs).toBeGreaterThanOrEqual(DRAIN_MS - 100);
    expect(tookMs).toBeLessThan(DRAIN_MS + 6000);
    expect(first.output()).toContain('drain deadline passed');

    const events = text.split('\n\n').filter(Boolean);
    expect(events.length).toBeGreaterThan(3);
    expect(JSON.parse(events.at(-1)!.replace(/^data: /, ''))).toEqual({
      error: { message: expect.stringContaining('shutting down'), type: 'server_error', param: null, code: 'server_shutting_down' },
    });
    expect(text).not.toContain('[DONE]');
    expect(text).not.toContain('"finish_reason":"stop"');
    expect(answer.status).toBe(503);
    expect(((await answer.json()) as any).error).toMatchObject({ type: 'server_error', code: 'server_shutting_down' });

    mock.reset();
    const second = await launch(configFile);
    try {
      const headers = { authorization: `Bearer ${MASTER_KEY}` };
      const list = (await (await fetch(`${second.url}/v1/admin/logs?page_size=10`, { headers })).json()) as any;
      expect(list.meta.total).toBe(2);
      const byModel = Object.fromEntries(list.data.map((row: any) => [row.model, row]));
      const streamed = (await (await fetch(`${second.url}/v1/admin/logs/${byModel['gpt-4o-mini'].id}`, { headers })).json()) as any;
      // The words the client got are billed (estimated: the stream never reached its usage chunk).
      expect(streamed).toMatchObject({ status: 'error', error_code: 'server_shutting_down', stream: true, billed: true });
      expect(streamed.response_tokens).toBeGreaterThan(0);
      expect(streamed.cost.total).toBeGreaterThan(0);
      const waited = (await (await fetch(`${second.url}/v1/admin/logs/${byModel['gpt-4o'].id}`, { headers })).json()) as any;
      expect(waited).toMatchObject({ status: 'error', error_code: 'server_shutting_down', billed: false });
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 60_000);
});
