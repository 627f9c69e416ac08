/**
 * The embeddings translations of each wire format, on the documented payloads in
 * test/fixtures/upstream (see EMBEDDINGS.md there): compat, vendor_c and vendor_d build the
 * upstream request and read its answer back to the OpenAI shape; vendor_b and custom have none.
 */
import { describe, expect, it } from 'vitest';
import { anthropicAdapter, azureAdapter, customAdapter, geminiAdapter, openaiAdapter } from './index.ts';
import type { EmbeddingsRequest } from './embeddings-types.ts';
import { fixtureJson, makeTarget } from './shared-fixtures.ts';
import { UpstreamStreamError } from './types.ts';

const request = (fields: Partial<EmbeddingsRequest>): EmbeddingsRequest => ({ model: 'client-model', input: 'x', ...fields });

describe('compat embeddings', () => {
  const target = makeTarget({ type: 'compat', endpoint: 'https://api.test/v1/', api_key: 'sk-up' }, 'text-embedding-3-small');
  it('posts to {endpoint}/embeddings asking for floats, with dimensions and user', () => {
    const built = openaiAdapter.embeddings!.buildRequest(request({ input: ['a', 'b'], encoding_format: 'base64', dimensions: 256, user: 'u', fallbacks: ['z'] }), target);
    expect(built.url).toBe('https://api.test/v1/embeddings');
    expect(built.headers.authorization).toBe('Bearer sk-up');
    expect(JSON.parse(built.body)).toEqual({ model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'float', dimensions: 256, user: 'u' });
  });
  it('refuses a body without a data list as a bad upstream answer', () => {
    expect(() => openaiAdapter.embeddings!.parseResponse({ object: 'list' }, request({}), target)).toThrow(UpstreamStreamError);
  });
});

describe('vendor_d embeddings (deployments)', () => {
  const target = makeTarget({ type: 'vendor_d', endpoint: 'https://res.openai.azure.com', api_key: 'az-key', api_version: '2024-10-21' }, 'embed-dep');
  it('posts the documented body to the deployment path with api-key', () => {
    const documented = fixtureJson('azure-openai/embeddings.request.json');
    const built = azureAdapter.embeddings!.buildRequest(request({ input: documented.input }), target);
    expect(built.url).toBe('https://res.openai.azure.com/openai/deployments/embed-dep/embeddings?api-version=2024-10-21');
    expect(built.headers['api-key']).toBe('az-key');
    expect(built.headers.authorization).toBeUndefined();
    expect(JSON.parse(built.body)).toMatchObject({ input: documented.input, encoding_format: 'float' });
  });
  it('uses the deployment-less path with api_version v1', () => {
    const v1 = makeTarget({ type: 'vendor_d', endpoint: 'https://res.openai.azure.com', api_version: 'v1' }, 'embed-dep');
    expect(azureAdapter.embeddings!.buildRequest(request({}), v1).url).toBe('https://res.openai.azure.com/openai/v1/embeddings');
  });
  it('reads the documented answer back with the client model name', () => {
    const answer = azureAdapter.embeddings!.parseResponse(fixtureJson('azure-openai/embeddings.response.documented.json'), request({}), target);
    expect(answer.model).toBe('client-model');
    expect(answer.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
    expect(answer.data[0]).toMatchObject({ object: 'embedding', index: 0 });
    expect((answer.data[0]!.embedding as number[])[0]).toBe(-0.0035420605);
  });
});

describe('vendor_c embeddings (embedContent / batchEmbedContents)', () => {
  const target = makeTarget({ type: 'vendor_c', endpoint: 'https://gen.test', api_key: 'g-key' }, 'gemini-embedding-001');
  it('sends one string to :embedContent in the documented shape', () => {
    const documented = fixtureJson('gemini/embedContent.request.json');
    const built = geminiAdapter.embeddings!.buildRequest(request({ input: documented.content.parts[0].text }), target);
    expect(built.url).toBe('https://gen.test/v1beta/models/gemini-embedding-001:embedContent');
    expect(built.headers['x-goog-api-key']).toBe('g-key');
    expect(JSON.parse(built.body)).toEqual({ content: documented.content });
  });
  it('sends a list to :batchEmbedContents, one request per input with its model', () => {
    const documented = fixtureJson('gemini/batchEmbedContents.request.json');
    const texts = documented.requests.map((r: any) => r.content.parts[0].text);
    const built = geminiAdapter.embeddings!.buildRequest(request({ input: texts }), target);
    expect(built.url).toBe('https://gen.test/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(JSON.parse(built.body)).toEqual(documented);
  });
  it('passes task_type and dimensions through as taskType and outputDimensionality', () => {
    const built = geminiAdapter.embeddings!.buildRequest(request({ input: ['q'], task_type: 'RETRIEVAL_QUERY', dimensions: 768 }), target);
    expect(JSON.parse(built.body).requests[0]).toMatchObject({ taskType: 'RETRIEVAL_QUERY', outputDimensionality: 768 });
  });
  it('refuses token ids with a 400 naming input', () => {
    try {
      geminiAdapter.embeddings!.buildRequest(request({ input: [[1, 2]] }), target);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ status: 400, code: 'unsupported_input', param: 'input' });
    }
  });
  it('reads both documented answers, in order, with estimated usage', () => {
    const one = geminiAdapter.embeddings!.parseResponse(fixtureJson('gemini/embedContent.response.documented.json'), request({ input: 'What is the meaning of life?' }), target);
    expect(one.data).toHaveLength(1);
    expect((one.data[0]!.embedding as number[])[0]).toBe(0.013168523);
    expect(one.usage.prompt_tokens).toBeGreaterThan(0);
    const batch = geminiAdapter.embeddings!.parseResponse(fixtureJson('gemini/batchEmbedContents.response.documented.json'), request({ input: ['a', 'b', 'c'] }), target);
    expect(batch.data.map((item) => item.index)).toEqual([0, 1, 2]);
    expect((batch.data[2]!.embedding as number[])[0]).toBe(0.014946244);
    expect(batch.model).toBe('client-model');
  });
  it('refuses an answer without values', () => {
    expect(() => geminiAdapter.embeddings!.parseResponse({ embeddings: [{}] }, request({ input: ['a'] }), target)).toThrow(UpstreamStreamError);
  });
});

describe('formats without embeddings', () => {
  it('vendor_b and custom have none', () => {
    expect(anthropicAdapter.embeddings).toBeUndefined();
    expect(customAdapter.embeddings).toBeUndefined();
  });
});
