/**
 * POST /api/v1/embeddings end to end with the official SDK: float and base64 answers, every
 * wire format that has embeddings (compat, vendor_c, vendor_d), a clear 400 for one that has
 * none, the `embeddings` capability, fallbacks, and the call log with usage and input cost.
 */
import { describe, expect, it } from 'vitest';
import { client, DEMO_KEY, useGateway, waitForLogRecord } from '../_setup.ts';
import { mockEmbedding } from '../mock-upstream/embeddings.ts';

const state = useGateway('embeddings.yaml');

async function post(body: unknown) {
  const res = await fetch(`${state.gw.url}/api/v1/embeddings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any, id: res.headers.get('x-request-id')! };
}

const close = (actual: number[], expected: number[]) => {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((value, index) => expect(value).toBeCloseTo(expected[index]!, 5));
};

describe('embeddings', () => {
  it('answers floats through the SDK, for a string and for a list', async () => {
    const sdk = client(state.gw);
    const one = await sdk.embeddings.create({ model: 'embed-small', input: 'hello world', encoding_format: 'float' });
    expect(one.object).toBe('list');
    expect(one.model).toBe('embed-small');
    close(one.data[0]!.embedding, mockEmbedding('hello world'));
    expect(one.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });

    const many = await sdk.embeddings.create({ model: 'embed-small', input: ['a b', 'c d e'], encoding_format: 'float' });
    expect(many.data.map((item) => item.index)).toEqual([0, 1]);
    close(many.data[1]!.embedding, mockEmbedding('c d e'));
    const sent = state.mock.requests.at(-1)!;
    expect(sent.path).toBe('/v1/embeddings');
    expect(sent.body).toMatchObject({ model: 'text-embedding-3-small', input: ['a b', 'c d e'], encoding_format: 'float' });
    expect(sent.headers.authorization).toBe('Bearer compat-secret');
  });

  it('answers base64 float32 when asked (the SDK default), decoded by the SDK', async () => {
    const sdk = client(state.gw);
    // Without encoding_format the SDK asks for base64 and decodes it to floats itself.
    const decoded = await sdk.embeddings.create({ model: 'embed-small', input: 'base sixty four' });
    close(decoded.data[0]!.embedding, mockEmbedding('base sixty four'));
    const raw = await post({ model: 'embed-small', input: 'base sixty four', encoding_format: 'base64' });
    expect(typeof raw.body.data[0].embedding).toBe('string');
    const bytes = Buffer.from(raw.body.data[0].embedding, 'base64');
    close(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)), mockEmbedding('base sixty four'));
  });

  it('passes dimensions and token-array input to a compat upstream', async () => {
    const { status, body } = await post({ model: 'embed-small', input: [[1, 2, 3]], dimensions: 8, user: 'u-1' });
    expect(status).toBe(200);
    expect(body.data[0].embedding).toHaveLength(8);
    expect(state.mock.requests.at(-1)!.body).toMatchObject({ input: [[1, 2, 3]], dimensions: 8, user: 'u-1' });
  });

  it('speaks embedContent / batchEmbedContents to a vendor_c upstream, task type passed through', async () => {
    const sdk = client(state.gw);
    const one = await sdk.embeddings.create({ model: 'embed-gen', input: 'one text', encoding_format: 'float' });
    close(one.data[0]!.embedding, mockEmbedding('one text'));
    expect(one.usage.prompt_tokens).toBeGreaterThan(0);
    let sent = state.mock.requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-embedding-001:embedContent');
    expect(sent.headers['x-goog-api-key']).toBe('gen-secret');
    expect(sent.body).toEqual({ content: { parts: [{ text: 'one text' }] } });

    const batch = await post({ model: 'embed-gen', input: ['first', 'second'], task_type: 'RETRIEVAL_DOCUMENT', dimensions: 16 });
    expect(batch.status).toBe(200);
    expect(batch.body.data).toHaveLength(2);
    close(batch.body.data[1].embedding, mockEmbedding('second', 16));
    sent = state.mock.requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(sent.body.requests[0]).toEqual({
      model: 'models/gemini-embedding-001', content: { parts: [{ text: 'first' }] }, taskType: 'RETRIEVAL_DOCUMENT', outputDimensionality: 16,
    });
  });

  it('refuses token input for vendor_c with a 400 naming input, without a call', async () => {
    const before = state.mock.requests.length;
    const { status, body } = await post({ model: 'embed-gen', input: [1, 2, 3] });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'unsupported_input', param: 'input' });
    expect(state.mock.requests.length).toBe(before);
  });

  it('calls a vendor_d deployment with api-key and api-version', async () => {
    const sdk = client(state.gw);
    const answer = await sdk.embeddings.create({ model: 'embed-dep', input: ['deployed'], encoding_format: 'float' });
    close(answer.data[0]!.embedding, mockEmbedding('deployed'));
    const sent = state.mock.requests.at(-1)!;
    expect(sent.path).toBe('/openai/deployments/embed-deployment/embeddings?api-version=2024-10-21');
    expect(sent.headers['api-key']).toBe('dep-secret');
    expect(sent.headers.authorization).toBeUndefined();
  });

  it('answers a clear 400 for a format without embeddings and for a chat-only model', async () => {
    const before = state.mock.requests.length;
    const msgs = await post({ model: 'msgs-model', input: 'x' });
    expect(msgs.status).toBe(400);
    expect(msgs.body.error).toMatchObject({ code: 'embeddings_not_supported', param: 'model', type: 'invalid_request_error' });
    const chat = await post({ model: 'chat-only', input: 'x' });
    expect(chat.status).toBe(400);
    expect(chat.body.error).toMatchObject({ code: 'capability_not_supported', param: 'model' });
    expect(state.mock.requests.length).toBe(before);
  });

  it('validates the body in the OpenAI error shape', async () => {
    expect((await post({ model: 'embed-small' })).body.error).toMatchObject({ code: 'invalid_body', param: 'input' });
    expect((await post({ model: 'embed-small', input: [] })).status).toBe(400);
    expect((await post({ model: 'embed-small', input: 'x', encoding_format: 'int8' })).body.error.param).toBe('encoding_format');
    expect((await post({ model: 'embed-small', input: 'x', dimensions: 0 })).body.error.param).toBe('dimensions');
    expect((await post({ model: 'nope', input: 'x' })).status).toBe(404);
  });

  it('refuses an empty input and token ids that are no int32 with a 400, without an upstream call', async () => {
    const before = state.mock.requests.length;
    for (const [input, param] of [['', 'input'], [['a', ''], 'input[1]'], [[1e20], 'input[0]'], [[[1], []], 'input[1]']] as const) {
      const { status, body } = await post({ model: 'embed-small', input });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_body', param });
    }
    expect(state.mock.requests.length).toBe(before);
  });

  it('falls back when the primary fails, and logs usage with the input price', async () => {
    const { status, body, id } = await post({ model: 'embed-broken', fallbacks: ['embed-small'], input: 'fall back here' });
    expect(status).toBe(200);
    expect(body.model).toBe('embed-small');
    const detail = await waitForLogRecord(state.gw, id);
    expect(detail).toMatchObject({ endpoint: 'embeddings', status: 'success', billed: true });
    expect(detail.attempts.map((a: any) => a.status)).toEqual([503, 200]);
    expect(detail.request_tokens ?? detail.usage?.prompt_tokens).toBe(3);
    // 3 tokens at 0.02 per thousand.
    expect(detail.cost.input).toBeCloseTo(0.00006, 8);
    expect(detail.cost.output).toBe(0);
    expect(JSON.stringify(detail.response)).not.toContain('embedding":[');
  });
});
