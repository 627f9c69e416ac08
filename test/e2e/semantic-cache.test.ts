/**
 * The semantic cache end to end, with the mock's deterministic bag-of-words embeddings
 * (threshold 0.9 in the fixture): hits above and misses below the threshold, partitions by
 * account and prompt_cache_key, a system prompt or temperature change is a miss, stream replay
 * read by the SDK, Cache-Control, an embedding failure answered as a miss, and the log.
 */
import { describe, expect, it } from 'vitest';
import { client, DEMO_KEY, MASTER_KEY, useGateway, waitForLogRecord } from '../_setup.ts';
import { cosine, mockEmbedding } from '../mock-upstream/embeddings.ts';

const state = useGateway('semantic-cache.yaml');
const THRESHOLD = 0.9;

async function chat(body: Record<string, unknown>, headers: Record<string, string> = {}, key = DEMO_KEY) {
  const res = await fetch(`${state.gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'gpt-4o-mini', ...body }),
  });
  const json = (await res.json()) as any;
  return { status: res.status, cache: res.headers.get('x-cache'), similarity: res.headers.get('x-cache-similarity'), id: res.headers.get('x-request-id')!, text: json.choices?.[0]?.message?.content as string };
}

const user = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: 'user', content }], ...extra });
/** Chat calls that reached the upstream (embedding calls excluded). */
const chatCalls = () => state.mock.requests.filter((r) => r.path.endsWith('/chat/completions')).length;

/** Lets the miss's onComplete store its answer before the next lookup. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('semantic cache', () => {
  const stored = 'please tell me which city is the capital of france today';
  const close = 'please tell me which city is the capital of france now';
  const far = 'please tell me which town is the capital of spain now';

  it('answers a prompt above the threshold from the stored completion, not one below', async () => {
    expect(cosine(mockEmbedding(stored), mockEmbedding(close))).toBeGreaterThanOrEqual(THRESHOLD);
    expect(cosine(mockEmbedding(stored), mockEmbedding(far))).toBeLessThan(THRESHOLD);
    const first = await chat(user(stored));
    expect(first).toMatchObject({ status: 200, cache: 'miss' });
    await settle();
    const calls = chatCalls();
    const hit = await chat(user(close));
    expect(hit).toMatchObject({ status: 200, cache: 'semantic-hit', text: first.text });
    expect(Number(hit.similarity)).toBeCloseTo(cosine(mockEmbedding(stored), mockEmbedding(close)), 3);
    expect(chatCalls()).toBe(calls);
    const miss = await chat(user(far));
    expect(miss).toMatchObject({ status: 200, cache: 'miss' });
    expect(miss.text).not.toBe(first.text);
    expect(chatCalls()).toBe(calls + 1);
  });

  it('logs a hit as a semantic hit with its similarity, unbilled', async () => {
    const hit = await chat(user('Please tell me which city is the capital of France, today?'));
    expect(hit.cache).toBe('semantic-hit');
    expect(Number(hit.similarity)).toBeCloseTo(1, 3);
    const detail = await waitForLogRecord(state.gw, hit.id);
    expect(detail).toMatchObject({ cache_hit: true, cache: 'semantic-hit', billed: false });
    expect(detail.cache_similarity).toBeCloseTo(1, 3);
    expect(detail.cost.total).toBe(0);
  });

  it('partitions by account and by prompt_cache_key', async () => {
    expect((await chat(user(stored), {}, MASTER_KEY)).cache).toBe('miss');
    const keyed = await chat(user('which planet is the largest in the solar system', { prompt_cache_key: 'tenant-a' }));
    expect(keyed.cache).toBe('miss');
    await settle();
    expect((await chat(user('which planet is the largest in the solar system', { prompt_cache_key: 'tenant-a' }))).cache).toBe('semantic-hit');
    expect((await chat(user('which planet is the largest in the solar system', { prompt_cache_key: 'tenant-b' }))).cache).toBe('miss');
    expect((await chat(user('which planet is the largest in the solar system'))).cache).toBe('miss');
  });

  it('misses when the system prompt or a sampling parameter changes', async () => {
    const base = (extra: Record<string, unknown>) => ({ messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'name three primary colours' }], ...extra });
    expect((await chat(base({ temperature: 0.2 }))).cache).toBe('miss');
    await settle();
    expect((await chat(base({ temperature: 0.2 }))).cache).toBe('semantic-hit');
    expect((await chat(base({ temperature: 0.9 }))).cache).toBe('miss');
    const otherSystem = base({ temperature: 0.2 });
    (otherSystem.messages as any)[0].content = 'You are verbose.';
    expect((await chat(otherSystem)).cache).toBe('miss');
  });

  it('replays a hit as a stream the SDK reads', async () => {
    const first = await chat(user('describe the water cycle in one short sentence'));
    await settle();
    const stream = client(state.gw).chat.completions.create({
      model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Describe the water cycle in one short sentence.' }],
    });
    const { data, response } = await stream.withResponse();
    expect(response.headers.get('x-cache')).toBe('semantic-hit');
    let text = '';
    for await (const chunk of data) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(first.text);
  });

  it('honours Cache-Control: no-cache skips the lookup, no-store the write', async () => {
    await chat(user('list the days of the week in order'));
    await settle();
    const calls = chatCalls();
    expect((await chat(user('list the days of the week in order'), { 'cache-control': 'no-cache' })).cache).toBe('miss');
    expect(chatCalls()).toBe(calls + 1);
    expect((await chat(user('count from one to five slowly'), { 'cache-control': 'no-store' })).cache).toBe('miss');
    await settle();
    expect((await chat(user('count from one to five slowly'))).cache).toBe('miss');
  });

  it('opts in and out per request with x-semantic-cache', async () => {
    const plain = { model: 'plain-model', ...user('what is the boiling point of water') };
    expect((await chat(plain)).cache).toBeNull();
    expect((await chat(plain, { 'x-semantic-cache': 'on' })).cache).toBe('miss');
    await settle();
    expect((await chat(plain, { 'x-semantic-cache': 'on' })).cache).toBe('semantic-hit');
    expect((await chat(user(stored), { 'x-semantic-cache': 'off' })).cache).toBeNull();
  });

  it('answers as a miss when the embedding model fails', async () => {
    state.mock.setBehavior('text-embedding-3-small', { status: 503, times: 1 });
    const calls = chatCalls();
    const answer = await chat(user(stored));
    expect(answer).toMatchObject({ status: 200, cache: 'miss' });
    expect(chatCalls()).toBe(calls + 1);
  });
});
