import { describe, expect, it } from 'vitest';
import { azureAdapter } from './azure.ts';
import type { ChatRequest } from './openai-types.ts';
import { fixtureJson, fixtureText, makeTarget, replayStream } from './shared-fixtures.ts';

const DIR = 'azure-openai/';
const target = makeTarget({ type: 'vendor_d', endpoint: 'https://res.openai.azure.test/', api_key: 'az-key', headers: { 'x-extra': '1' } }, 'gpt-4o', 'azure-4o');

describe('azure adapter', () => {
  it('posts to the deployment path with api-version and the api-key header', () => {
    const recorded = fixtureJson(DIR + 'chat.request.json');
    const built = azureAdapter.buildRequest({ ...recorded, model: 'azure-4o' } as ChatRequest, target, { stream: false });
    expect(built.url).toBe('https://res.openai.azure.test/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21');
    expect(built.headers).toEqual({ 'content-type': 'application/json', 'api-key': 'az-key', 'x-extra': '1' });
    expect(built.headers).not.toHaveProperty('authorization');
    const { stream: _stream, ...important } = recorded;
    expect(JSON.parse(built.body)).toEqual(important);
  });

  it('uses the configured api_version, and the deployment-less path for v1', () => {
    const preview = makeTarget({ type: 'vendor_d', endpoint: 'https://r.test', api_version: '2024-12-01-preview' }, 'my deployment');
    expect(azureAdapter.buildRequest({ model: 'x', messages: [] }, preview, { stream: false }).url).toBe(
      'https://r.test/openai/deployments/my%20deployment/chat/completions?api-version=2024-12-01-preview',
    );
    const v1 = makeTarget({ type: 'vendor_d', endpoint: 'https://r.test', api_version: 'v1' }, 'gpt-5');
    const built = azureAdapter.buildRequest({ model: 'x', messages: [] }, v1, { stream: true });
    expect(built.url).toBe('https://r.test/openai/v1/chat/completions');
    expect(JSON.parse(built.body)).toMatchObject({ model: 'gpt-5', stream: true });
    expect(azureAdapter.supportsPrefix).toBe(false);
    expect(azureAdapter.type).toBe('vendor_d');
  });

  it('translates the recorded response with content filter results', () => {
    const completion = azureAdapter.parseResponse(fixtureJson(DIR + 'chat.response.json'), target);
    expect(completion.model).toBe('azure-4o');
    expect(completion.choices[0]).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant', content: 'The capital of France is **Paris**.' } });
    expect(completion.usage).toMatchObject({ prompt_tokens: 14, completion_tokens: 9, total_tokens: 23 });
  });

  it('absorbs the leading prompt_filter_results chunk of the recorded stream', () => {
    const out = replayStream(azureAdapter, target, fixtureText(DIR + 'chat.stream.sse.txt'));
    expect(out.text).toBe('Hallo Welt!');
    expect(out.finishReason).toBe('stop');
    expect(out.done).toBe(true);
    expect(out.chunks.every((c) => c.choices.length === 1 && c.model === 'azure-4o')).toBe(true);
    expect(out.chunks[0].choices[0].delta.role).toBe('assistant');
  });

  it('translates the recorded model-router stream with its usage chunk', () => {
    const lines = fixtureText(DIR + 'chat.stream.model-router.chunks.jsonl').split('\n').filter(Boolean);
    const sse = lines.map((line) => `data: ${line}\n\n`).join('') + 'data: [DONE]\n\n';
    const out = replayStream(azureAdapter, target, sse);
    expect(out.text).toMatch(/^Capital of Denmark/);
    expect(out.finishReason).toBe('stop');
    expect(out.usage?.total_tokens).toBeGreaterThan(0);
    expect(out.done).toBe(true);
  });

  it('maps a content_filter finish and the content-filter 400', () => {
    const filtered = azureAdapter.parseResponse(
      { id: 'chatcmpl-x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'content_filter', content_filter_results: { sexual: { filtered: true, severity: 'high' } } }] },
      target,
    );
    expect(filtered.choices[0].finish_reason).toBe('content_filter');
    const error = azureAdapter.parseError(400, fixtureText(DIR + 'error.400.content-filter.observed.json'));
    expect(error).toMatchObject({ status: 400, type: 'invalid_request_error', code: 'content_filter', param: 'prompt' });
    expect(error.message).toMatch(/^The response was filtered due to the prompt triggering Azure OpenAI's content management policy/);
  });

  it('sends image parts unchanged (OpenAI wire format)', () => {
    const content = [{ type: 'text', text: 'What is it?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }];
    const built = azureAdapter.buildRequest({ model: 'x', messages: [{ role: 'user', content }] }, target, { stream: false });
    expect(JSON.parse(built.body).messages[0].content).toEqual(content);
  });
});
