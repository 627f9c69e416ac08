/**
 * The system config takes effect on calls: `features.*` switched off refuse what needs them,
 * `limits.default_temperature` and `limits.default_max_tokens` fill in what a request omits.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { api, DEMO_KEY, useGateway } from '../_setup.ts';

const state = useGateway('system-defaults.yaml');
beforeEach(() => state.mock.reset());

async function chat(body: Record<string, unknown>) {
  const res = await fetch(`${state.gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'roomy', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('features', () => {
  it('refuses streaming, tools and images while they are switched off, before any upstream call', async () => {
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }];
    const image = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }];
    for (const [extra, param] of [[{ stream: true }, 'stream'], [{ tools }, 'tools'], [{ messages: image }, 'messages']] as const) {
      const { status, body } = await chat(extra);
      expect(status, param).toBe(400);
      expect(body.error, param).toMatchObject({ type: 'invalid_request_error', code: 'feature_disabled', param });
    }
    expect(state.mock.requests).toHaveLength(0);
  });
});

describe('limits', () => {
  it('sends the default temperature and max_tokens when the request names none', async () => {
    expect((await chat({})).status).toBe(200);
    expect(state.mock.requests[0].body).toMatchObject({ temperature: 0.3, max_tokens: 100 });
    expect((await api(state.gw, 'GET', '/v1/settings', undefined, DEMO_KEY)).body.api.default_temperature).toBe(0.3);
  });

  it("keeps the request's own values", async () => {
    expect((await chat({ temperature: 1.1, max_tokens: 7 })).status).toBe(200);
    expect((await chat({ max_completion_tokens: 9 })).status).toBe(200);
    expect(state.mock.requests[0].body).toMatchObject({ temperature: 1.1, max_tokens: 7 });
    expect(state.mock.requests[1].body.max_completion_tokens).toBe(9);
    expect(state.mock.requests[1].body.max_tokens).toBeUndefined();
  });

  it('lowers the default to what the context leaves after the prompt', async () => {
    expect((await chat({ model: 'tight' })).status).toBe(200);
    const sent = state.mock.requests[0].body.max_tokens;
    expect(sent).toBeGreaterThan(40);
    expect(sent).toBeLessThan(60);
  });
});
