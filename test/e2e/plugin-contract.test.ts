import { resolve } from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { client, DEMO_KEY, useGateway, waitForLogRecord } from '../_setup.ts';

// One concurrency slot (queue_timeout_ms 500) and a custom step after `concurrency` that breaks
// the plugin rules when asked (test/fixtures/plugins/misbehaving.ts).
const state = useGateway('plugin-contract.yaml', { PLUGINS_DIR: resolve('test/fixtures/plugins') });

function chat(mode: string, body: Record<string, unknown> = {}) {
  return fetch(`${state.gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json', 'x-misbehave': mode },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
}

describe('a custom step that breaks the plugin rules', () => {
  it('resolving to undefined gets a clean 500, and the request still completes: slot released, call logged', async () => {
    const broken = await chat('undefined');
    expect(broken.status).toBe(500);
    expect(await broken.json()).toEqual({ error: { message: expect.any(String), type: 'server_error', param: null, code: 'internal_error' } });
    const id = broken.headers.get('x-request-id')!;
    expect(id).toMatch(/^req_/);
    expect(await waitForLogRecord(state.gw, id)).toMatchObject({ status: 'error', http_status: 500, error_code: 'internal_error' });
    // With the slot leaked, every later request waited 500 ms for it, then got 503 queue_timeout.
    for (let i = 0; i < 2; i++) expect((await chat('')).status).toBe(200);
  });

  it('throwing while transforming a stream ends it with the error event, logged as the gateway error', async () => {
    state.mock.setBehavior('gpt-4o-mini', { chunkDelayMs: 30, reply: 'one two three four' });
    const { data: stream, response } = await client(state.gw)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], stream: true }, { headers: { 'x-misbehave': 'stream-throw' } })
      .withResponse();
    const error = await (async () => {
      for await (const _chunk of stream);
    })().catch((e) => e);
    state.mock.reset();
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.error).toEqual({ message: 'The server had an error while processing the request.', type: 'server_error', param: null, code: 'internal_error' });
    const record = await waitForLogRecord(state.gw, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ status: 'error', error_code: 'internal_error' }); // not client_closed
  });

  it('a slow onComplete does not hold the concurrency slot past the last byte', async () => {
    // The step's onComplete takes 1500 ms; the next request may wait at most 500 ms for the slot.
    expect((await chat('slow-complete')).status).toBe(200);
    const next = await chat('');
    expect(next.status).toBe(200);
  });

  it("a short-circuit answer carries the request id and rate-limit headers, keeping the step's own", async () => {
    const response = await chat('short');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ short: 't1' });
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.headers.get('x-ratelimit-remaining-requests')).toMatch(/^\d+$/);
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('mine');
  });
});
