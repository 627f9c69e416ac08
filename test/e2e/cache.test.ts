/**
 * The response cache end to end: an identical request is answered from the cache; the
 * client's `prompt_cache_key` partitions the cache and never stands for the prompt.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, useGateway } from '../_setup.ts';

const state = useGateway('cache.yaml');

async function chat(body: Record<string, unknown>) {
  const res = await fetch(`${state.gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', ...body }),
  });
  return { status: res.status, cache: res.headers.get('x-cache'), body: (await res.json()) as any };
}

const ask = (content: string) => [{ role: 'user', content }];

describe('response cache', () => {
  it('answers an identical request from the cache', async () => {
    const first = await chat({ messages: ask('cache me please') });
    const second = await chat({ messages: ask('cache me please') });
    expect(first.cache).toBe('miss');
    expect(second.cache).toBe('hit');
    expect(second.body.choices[0].message.content).toBe('Echo: cache me please');
  });

  it('gives two different prompts sharing a prompt_cache_key their own answers', async () => {
    const first = await chat({ messages: ask('what is red'), prompt_cache_key: 'shared-prefix' });
    const second = await chat({ messages: ask('what is blue'), prompt_cache_key: 'shared-prefix' });
    expect(first.body.choices[0].message.content).toBe('Echo: what is red');
    expect(second.cache).toBe('miss');
    expect(second.body.choices[0].message.content).toBe('Echo: what is blue');
    const again = await chat({ messages: ask('what is blue'), prompt_cache_key: 'shared-prefix' });
    expect(again.cache).toBe('hit');
    expect(again.body.choices[0].message.content).toBe('Echo: what is blue');
  });

  it('keeps answers cached under different prompt_cache_keys apart', async () => {
    await chat({ messages: ask('partitioned prompt'), prompt_cache_key: 'tenant-a' });
    const other = await chat({ messages: ask('partitioned prompt'), prompt_cache_key: 'tenant-b' });
    expect(other.cache).toBe('miss');
  });

  it('caches a streamed tool call and replays it whole', async () => {
    const body = {
      stream: true,
      messages: ask('Oslo'),
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }],
    };
    const calls: string[] = [];
    for (const expected of ['miss', 'hit']) {
      const res = await fetch(`${state.gw.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', ...body }),
      });
      expect(res.headers.get('x-cache')).toBe(expected);
      const chunks = (await res.text()).split('\n\n').filter((frame) => frame.startsWith('data: {')).map((frame) => JSON.parse(frame.slice(6)));
      const args = chunks.flatMap((chunk) => chunk.choices.flatMap((c: any) => c.delta.tool_calls ?? [])).map((call: any) => call.function?.arguments ?? '').join('');
      calls.push(args);
      expect(chunks.at(-1).choices[0].finish_reason).toBe('tool_calls');
    }
    expect(calls).toEqual(['{"city":"Oslo"}', '{"city":"Oslo"}']);
  });
});
