import { resolve } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';

let mock: MockUpstream;
beforeAll(async () => {
  mock = await startMockUpstream();
});
afterAll(async () => mock?.close());

describe('custom plugins from pipeline:', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway('custom-plugin.yaml', { MOCK_URL: `${mock.url}/v1`, EXAMPLES_DIR: resolve('examples') });
  });
  afterAll(async () => gw?.close());

  it('runs the README example plugin in its configured place', async () => {
    const { data, response } = await client(gw)
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], user: 'alice' })
      .withResponse();
    expect(data.choices[0].message.content).toBe('Echo: hi');
    expect(response.headers.get('x-checked-by')).toBe('block-users');
  });

  it('short-circuits with its own error before the upstream is called', async () => {
    mock.reset();
    const error = await client(gw).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], user: 'mallory' }).catch((e) => e);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(error.error).toMatchObject({ code: 'user_blocked', message: "User 'mallory' is blocked." });
    expect(mock.requests).toHaveLength(0);
  });
});

describe('a failing custom step', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway('failing-plugin.yaml', { MOCK_URL: `${mock.url}/v1`, PLUGINS_DIR: resolve('test/fixtures/plugins') });
  });
  afterAll(async () => gw?.close());

  it('becomes a clean 500 in the error shape, hiding the internal message, and the gateway keeps serving', async () => {
    for (let i = 0; i < 2; i++) {
      const error = await client(gw).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e);
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect(error.error).toEqual({ message: expect.any(String), type: 'server_error', param: null, code: 'internal_error' });
      expect(JSON.stringify(error.error)).not.toContain('boom');
    }
    const health = await fetch(`${gw.url}/v1/system/health`);
    expect(health.status).toBe(200);
  });
});

describe('plugin options are validated by the plugin schema at load', () => {
  it('refuses to start with options its schema rejects, naming the problem', async () => {
    const error = await startTestGateway('bad-plugin-options.yaml', { MOCK_URL: `${mock.url}/v1`, EXAMPLES_DIR: resolve('examples') }).catch((e) => e);
    expect(String(error)).toMatch(/block-users.ts': options.blocked must be array/);
  });

  it('refuses to start when the module cannot be loaded', async () => {
    const error = await startTestGateway('custom-plugin.yaml', { MOCK_URL: `${mock.url}/v1`, EXAMPLES_DIR: '/nonexistent' }).catch((e) => e);
    expect(String(error)).toMatch(/block-users.ts': cannot load module/);
  });
});
