/**
 * A model config's `context_length` and `capabilities` decide, before any upstream call,
 * whether it can serve a request: a fallback that can is used, else a 400 naming the reason.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO_KEY, useGateway } from '../_setup.ts';

const state = useGateway('model-fit.yaml');
beforeEach(() => state.mock.reset());

async function chat(body: Record<string, unknown>) {
  const res = await fetch(`${state.gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const long = [{ role: 'user', content: Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ') }];
const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }];
const image = [{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }];

describe('context_length', () => {
  it('refuses a prompt larger than the context with 400 context_length_exceeded, before any upstream call', async () => {
    const { status, body } = await chat({ model: 'small', messages: long });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'context_length_exceeded', param: 'messages' });
    expect(body.error.message).toContain("'small'");
    expect(state.mock.requests).toHaveLength(0);
  });

  it('counts max_tokens with the prompt', async () => {
    expect((await chat({ model: 'small', max_tokens: 20 })).status).toBe(200);
    const { status, body } = await chat({ model: 'small', max_tokens: 100 });
    expect(status).toBe(400);
    expect(body.error.code).toBe('context_length_exceeded');
    expect((await chat({ model: 'small', max_completion_tokens: 100 })).body.error.code).toBe('context_length_exceeded');
  });

  it('goes to a fallback with a larger context', async () => {
    const { status, body } = await chat({ model: 'small', fallbacks: ['big'], messages: long });
    expect(status).toBe(200);
    expect(body.model).toBe('big');
    expect(state.mock.requests.map((r) => r.model)).toEqual(['gpt-4o']);
  });
});

describe('capabilities', () => {
  it('refuses tools, images or JSON mode on a model that does not declare them, naming the param', async () => {
    for (const [extra, param] of [[{ tools }, 'tools'], [{ messages: image }, 'messages'], [{ response_format: { type: 'json_object' } }, 'response_format']] as const) {
      const { status, body } = await chat({ model: 'small', ...extra });
      expect(status, param).toBe(400);
      expect(body.error, param).toMatchObject({ type: 'invalid_request_error', code: 'capability_not_supported', param });
    }
    expect(state.mock.requests).toHaveLength(0);
  });

  it('routes to a fallback that has the capability', async () => {
    const { status, body } = await chat({ model: 'small', fallbacks: ['big'], tools });
    expect(status).toBe(200);
    expect(body.model).toBe('big');
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(state.mock.requests.map((r) => r.model)).toEqual(['gpt-4o']);
  });

  it('does not restrict a model that declares no capabilities', async () => {
    expect((await chat({ model: 'undeclared', tools })).status).toBe(200);
    expect((await chat({ model: 'big', messages: image, response_format: { type: 'json_object' } })).status).toBe(200);
  });
});
