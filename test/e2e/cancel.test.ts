import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { client, useGateway } from '../_setup.ts';

const env = useGateway('providers.yaml');
beforeEach(() => env.mock.reset());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(check: () => boolean, ms = 2000) {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await sleep(20);
  return check();
}

const MODELS = [
  ['compat', 'compat/m-compat', 'm-compat'],
  ['vendor_b', 'msgs/m-msgs', 'm-msgs'],
  ['vendor_c', 'gen/m-gen', 'm-gen'],
] as const;

describe.each(MODELS)('client disconnect cancels the upstream call (%s)', (_type, model, upstream) => {
  it('while waiting for a non-stream answer', async () => {
    env.mock.setBehavior(upstream, { delayMs: 3000 });
    const controller = new AbortController();
    const pending = client(env.gw).chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }, { signal: controller.signal });
    await waitFor(() => env.mock.requests.length === 1);
    controller.abort();
    expect(await pending.catch((e) => e)).toBeInstanceOf(OpenAI.APIUserAbortError);
    expect(await waitFor(() => env.mock.requests[0].aborted)).toBe(true);
  });

  it('while waiting for the first token of a stream', async () => {
    env.mock.setBehavior(upstream, { delayMs: 3000 });
    const controller = new AbortController();
    const pending = client(env.gw).chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }], stream: true }, { signal: controller.signal });
    await waitFor(() => env.mock.requests.length === 1);
    controller.abort();
    await pending.catch(() => {});
    expect(await waitFor(() => env.mock.requests[0].aborted)).toBe(true);
  });

  it('in the middle of a stream', async () => {
    env.mock.setBehavior(upstream, { chunkDelayMs: 150, reply: 'a b c d e f g h i j k l' });
    const stream = await client(env.gw).chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }], stream: true });
    let pieces = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta?.content) pieces++;
      if (pieces === 2) break; // leaving the loop aborts the request
    }
    expect(await waitFor(() => env.mock.requests[0].aborted)).toBe(true);
  });
});

describe('client disconnect on the responses interface', () => {
  it('cancels the upstream stream', async () => {
    env.mock.setBehavior('m-compat', { chunkDelayMs: 150, reply: 'a b c d e f g h i j k l' });
    const stream = await client(env.gw).responses.create({ model: 'compat/m-compat', input: 'x', stream: true });
    for await (const event of stream) if (event.type === 'response.output_text.delta') break;
    expect(await waitFor(() => env.mock.requests[0].aborted)).toBe(true);
  });
});
