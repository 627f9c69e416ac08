import { describe, expect, it } from 'vitest';
import { customAdapter } from './custom.ts';
import { makeTarget } from './shared-fixtures.ts';

describe('custom adapter', () => {
  it('uses /chat/completions by default, with bearer auth and the extra headers', () => {
    const target = makeTarget({ type: 'custom', endpoint: 'https://llm.internal/v1/', api_key: 'k', headers: { 'x-tenant': 't1' } }, 'llama-3');
    const built = customAdapter.buildRequest({ model: 'x', messages: [{ role: 'user', content: 'hi' }], fallbacks: ['y'] }, target, { stream: false });
    expect(built.url).toBe('https://llm.internal/v1/chat/completions');
    expect(built.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer k', 'x-tenant': 't1' });
    expect(JSON.parse(built.body)).toEqual({ model: 'llama-3', messages: [{ role: 'user', content: 'hi' }] });
  });

  it('substitutes {model} in the path template and sends no auth without a key', () => {
    const target = makeTarget({ type: 'custom', endpoint: 'https://h.test', path: '/models/{model}/chat?x=1', headers: { 'x-api-key': 's' } }, 'org/model a');
    const built = customAdapter.buildRequest({ model: 'x', messages: [] }, target, { stream: true });
    expect(built.url).toBe('https://h.test/models/org%2Fmodel%20a/chat?x=1');
    expect(built.headers).toEqual({ 'content-type': 'application/json', 'x-api-key': 's' });
    expect(JSON.parse(built.body)).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('speaks the compat format for answers', () => {
    const target = makeTarget({ type: 'custom' }, 'm', 'client-name');
    const completion = customAdapter.parseResponse({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [] }, target);
    expect(completion.model).toBe('client-name');
    expect(customAdapter.type).toBe('custom');
  });
});
