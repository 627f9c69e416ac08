import { describe, expect, it } from 'vitest';
import { createContext, type Endpoint } from '../pipeline/context.ts';
import { testConfig, testRuntime } from '../pipeline/test-context.ts';
import type { ChatRequest } from '../providers/openai-types.ts';
import auth from './auth.ts';

const KEY = 'sk-bf-test-user-0000000000000000000000000000';
const runtime = testRuntime(
  testConfig(`providers:
  - { id: main, name: Main, type: compat, endpoint: 'http://127.0.0.1:9/v1', models: [m] }
groups:
  - { id: default, name: Default }
accounts:
  - { id: demo, email: demo@example.com, name: Demo, role: member, group: default }
keys:
  - id: demo-key
    name: Demo key
    key_hash: sha256:b21fd6a00e41f3ae3f6aeab9ae89dab1a788c1cca8ad7e394cd6b7c02e2b5ef0
    account: demo
settings:
  api:
    default_temperature: 0.3
    stream_by_default: true
`),
);

async function authenticated(endpoint: Endpoint, body: Record<string, unknown>) {
  const ctx = createContext({
    request: new Request(`http://localhost/api/v1/${endpoint}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` } }),
    endpoint,
    runtime,
    snapshot: runtime.current(),
    ip: '127.0.0.1',
    body: { ...body } as ChatRequest,
    rawBody: body,
    signal: new AbortController().signal,
  });
  const step = (await auth.setup({}, { runtime } as never)).handle!;
  await step(ctx, async () => new Response('ok'));
  return ctx;
}

describe('auth', () => {
  it('fills in the account\'s chat defaults the body leaves out', async () => {
    const ctx = await authenticated('chat', { model: 'main/m', messages: [{ role: 'user', content: 'hi' }] });
    expect(ctx.principal?.accountId).toBe('demo');
    expect(ctx.body).toMatchObject({ temperature: 0.3, stream: true });
  });

  it('leaves an embeddings body without chat defaults: it has no temperature or stream', async () => {
    const ctx = await authenticated('embeddings', { model: 'main/m', input: 'hi' });
    expect(ctx.principal?.accountId).toBe('demo');
    expect(ctx.body).toEqual({ model: 'main/m', input: 'hi' });
  });
});
