/**
 * Guardrails end to end: a block in each endpoint's own error shape (OpenAI, Anthropic, Google,
 * through their SDKs), before the upstream and mid-stream; input redaction as the upstream
 * receives it; output redaction streamed across chunk boundaries; a flag in the call log and the
 * metrics; a webhook failing open and closed (down, slow, nonsense); a moderation model through
 * a fallback, and a chat model as a moderator; a cache hit checked like a fresh answer after a
 * guardrail change made through the management API (write-back, reload).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { api, client, DEMO_KEY, useGateway, waitForLogRecord } from '../_setup.ts';

type HookMode = 'pass' | 'flag' | 'down' | 'slow' | 'nonsense' | '500';
let hookMode: HookMode = 'pass';
const hookBodies: any[] = [];
let hook: Server;
const env: Record<string, string> = {};

beforeAll(async () => {
  hook = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      hookBodies.push(JSON.parse(text));
      if (hookMode === 'down') return void req.socket.destroy();
      if (hookMode === 'slow') return void setTimeout(() => res.end('{"flagged":false}'), 2000);
      if (hookMode === 'nonsense') return void res.end('<html>maintenance</html>');
      if (hookMode === '500') return void res.writeHead(500).end('{}');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(hookMode === 'flag' ? { flagged: true, categories: ['insult'] } : { flagged: false }));
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  env.HOOK_URL = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/check`;
});
afterAll(() => new Promise<void>((resolve) => hook.close(() => resolve())));

const gw = useGateway('guardrails.yaml', env);
beforeEach(() => {
  gw.mock.reset();
  hookMode = 'pass';
  hookBodies.length = 0;
});

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const JWT = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'u-1' })}.c2lnbmF0dXJlLWJ5dGVz`;
const API_KEY = 'sk-proj-Zk3QmR8tYw2LpV9xNc4B';

const openai = () => client(gw.gw);
const anthropic = () => new Anthropic({ apiKey: DEMO_KEY, baseURL: `${gw.gw.url}/api`, maxRetries: 0 });
const google = () => new GoogleGenAI({ apiKey: DEMO_KEY, httpOptions: { baseUrl: `${gw.gw.url}/api` } });

async function openaiError(call: () => Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await call();
  } catch (error) {
    if (error instanceof OpenAI.APIError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

const chat = (model: string, content: string, extra: Record<string, unknown> = {}) =>
  fetch(`${gw.gw.url}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content }], ...extra }),
  });

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${gw.gw.url}/metrics`)).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.includes(w)));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('block, in the shape of the endpoint called', () => {
  it('OpenAI SDK: a secret in the prompt is a 400 guardrail_blocked naming the guardrail, not the secret; no upstream call', async () => {
    const error = await openaiError(() => openai().chat.completions.create({ model: 'plain-model', messages: [{ role: 'user', content: `my token is ${JWT}` }] }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('guardrail_blocked');
    expect(error.param).toBe('no-secrets');
    expect(error.message).toContain("guardrail 'no-secrets' (jwt)");
    expect(error.message).not.toContain(JWT.slice(0, 12));
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('Anthropic SDK: the Messages API error shape', async () => {
    try {
      await anthropic().messages.create({ model: 'plain-model', max_tokens: 64, messages: [{ role: 'user', content: `use key ${API_KEY}` }] });
      throw new Error('the call succeeded');
    } catch (error) {
      if (!(error instanceof Anthropic.APIError)) throw error;
      expect(error.status).toBe(400);
      expect((error.error as any).type).toBe('error');
      expect((error.error as any).error.type).toBe('invalid_request_error');
      expect((error.error as any).error.message).toMatch(/^guardrail_blocked: the request was blocked by guardrail 'no-secrets' \(api_key\)/);
      expect(JSON.stringify(error.error)).not.toContain(API_KEY);
    }
    expect(gw.mock.requests).toHaveLength(0);
  });

  it('Google GenAI SDK: the generateContent error shape with the code as ErrorInfo reason', async () => {
    try {
      await google().models.generateContent({ model: 'plain-model', contents: `aws AKIAIOSFODNN7EXAMPLE` });
      throw new Error('the call succeeded');
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      expect(error.status).toBe(400);
      const body = JSON.parse(error.message.slice(error.message.indexOf('{')));
      expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      expect(body.error.details[0]).toMatchObject({ reason: 'guardrail_blocked', metadata: { param: 'no-secrets' } });
      expect(error.message).not.toContain('AKIAIOSFODNN7EXAMPLE');
    }
  });

  it('a secret in a streamed answer ends the stream with an error event: OpenAI SDK and Anthropic SDK', async () => {
    gw.mock.setBehavior('m-compat', { reply: `Here you go: ${API_KEY} and some more words after it to fill the window.` });
    const error = await openaiError(async () => {
      const stream = await openai().chat.completions.create({ model: 'plain-model', stream: true, messages: [{ role: 'user', content: 'give me a key' }] });
      for await (const chunk of stream) expect(chunk.choices[0]?.delta?.content ?? '').not.toContain('sk-proj');
    });
    expect(error.message).toContain("guardrail 'no-secrets'");

    const events: string[] = [];
    await expect(async () => {
      const stream = anthropic().messages.stream({ model: 'plain-model', max_tokens: 64, messages: [{ role: 'user', content: 'give me a key too' }] });
      stream.on('text', (text) => events.push(text));
      await stream.finalMessage();
    }).rejects.toThrow(/guardrail_blocked/);
    expect(events.join('')).not.toContain('sk-proj');
  });
});

describe('redact', () => {
  it('input: the upstream receives typed placeholders, the client its answer', async () => {
    const res = await chat('chat-model', 'Mail ann@example.com or call +44 20 7946 0958 about IBAN DE89 3704 0044 0532 0130 00');
    expect(res.status).toBe(200);
    const sent = gw.mock.requests[0]!.body.messages.at(-1).content;
    expect(sent).toBe('Mail [EMAIL] or call [PHONE] about IBAN [IBAN]');
    const detail = await waitForLogRecord(gw.gw, res.headers.get('x-request-id')!);
    expect(JSON.stringify(detail.request)).not.toContain('ann@example.com'); // the log keeps the redacted body
    expect(detail.guardrails).toContainEqual({ guardrail: 'pii', check: 'pii', stage: 'input', action: 'redact', result: 'redacted', categories: ['email', 'phone', 'iban'] });
  });

  it('embeddings input and the Responses API go through the same guardrails', async () => {
    const embedded = await openai().embeddings.create({ model: 'chat-model', input: ['mail ann@example.com', 'plain text'] });
    expect(embedded.data).toHaveLength(2);
    expect(gw.mock.requests[0]!.body.input).toEqual(['mail [EMAIL]', 'plain text']);
    const error = await openaiError(() => openai().responses.create({ model: 'plain-model', input: `token ${JWT}` }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('guardrail_blocked');
  });

  it('output, streamed: a card split over four chunks never reaches the client, even in part', async () => {
    gw.mock.setBehavior('m-compat', { reply: 'Your card 4111 1111 1111 1111 is on file, mail ann@example.com if it changes.' });
    const stream = await openai().chat.completions.create({ model: 'chat-model', stream: true, messages: [{ role: 'user', content: 'which card?' }] });
    const pieces: string[] = [];
    for await (const chunk of stream) pieces.push(chunk.choices[0]?.delta?.content ?? '');
    expect(pieces.join('')).toBe('Your card [CARD] is on file, mail [EMAIL] if it changes.');
    for (const piece of pieces) expect(piece).not.toMatch(/4111|ann@/);
    expect(pieces.filter(Boolean).length).toBeGreaterThan(1); // chunk-wise, not one buffered answer
  });
});

describe('flag, log and metric', () => {
  it('a flagged word (any case, no accents) passes, and the verdict is in the log and the metrics', async () => {
    const before = await metric('gateway_guardrail_verdicts_total', { guardrail: 'codename', result: 'flagged' });
    const res = await chat('plain-model', 'what is PROJET EMERAUDE?');
    expect(res.status).toBe(200);
    expect(gw.mock.requests[0]!.body.messages.at(-1).content).toBe('what is PROJET EMERAUDE?');
    const detail = await waitForLogRecord(gw.gw, res.headers.get('x-request-id')!);
    expect(detail.guardrails).toContainEqual({ guardrail: 'codename', check: 'words', stage: 'input', action: 'flag', result: 'flagged', categories: ['redacted'] });
    expect(detail.guardrails).toContainEqual(expect.objectContaining({ guardrail: 'no-secrets', stage: 'output', result: 'pass' }));
    expect(JSON.stringify(detail.guardrails)).not.toMatch(/emeraude/i);
    expect(await metric('gateway_guardrail_verdicts_total', { guardrail: 'codename', stage: 'input', action: 'flag', result: 'flagged' })).toBe(before + 1);
  });
});

describe('webhook', () => {
  it('is sent the text and context; a flagged answer blocks', async () => {
    hookMode = 'flag';
    const res = await chat('hooked-open', 'you are an idiot');
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'guardrail_blocked', param: 'hook-open' });
    expect(hookBodies[0]).toMatchObject({ guardrail: 'hook-open', stage: 'input', text: 'you are an idiot', context: { model: 'hooked-open', account: 'demo', key: 'demo-key' } });
  });

  it.each(['down', 'slow', 'nonsense', '500'] as const)('%s: fail-open lets the request through and logs why; fail-closed refuses it', async (mode) => {
    hookMode = mode;
    const open = await chat('hooked-open', `hello ${mode}`);
    expect(open.status).toBe(200);
    const detail = await waitForLogRecord(gw.gw, open.headers.get('x-request-id')!);
    expect(detail.guardrails).toContainEqual({ guardrail: 'hook-open', check: 'webhook', stage: 'input', action: 'block', result: 'error', categories: [], failed: 'open' });
    const closed = await chat('hooked-closed', `hello ${mode}`);
    expect(closed.status).toBe(503);
    expect((await closed.json()).error).toMatchObject({ code: 'guardrail_unavailable', param: 'hook-closed' });
  });
});

describe('moderation through the gateway routing', () => {
  it('falls back to the next moderation model when the first fails, and blocks what it flags', async () => {
    gw.mock.setBehavior('mod-a', { status: 503 });
    const res = await chat('moderated', 'I will attack the castle');
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'guardrail_blocked', param: 'moderation', message: expect.stringContaining('(violence)') });
    const moderations = gw.mock.requests.filter((r) => r.path.endsWith('/moderations'));
    expect(moderations.map((r) => r.model)).toEqual(['mod-a', 'mod-b']);
    expect(gw.mock.requests.some((r) => r.path.endsWith('/chat/completions'))).toBe(false);

    const ok = await chat('moderated', 'I will visit the castle');
    expect(ok.status).toBe(200);
  });

  it('a chat model with a prompt as the moderator: its UNSAFE answer flags', async () => {
    gw.mock.setBehavior('judge-chat', { reply: 'UNSAFE: violence' });
    const res = await chat('chat-moderated', 'a story about a duel');
    expect(res.status).toBe(200);
    const detail = await waitForLogRecord(gw.gw, res.headers.get('x-request-id')!);
    expect(detail.guardrails).toContainEqual(expect.objectContaining({ guardrail: 'chat-moderation', result: 'flagged', categories: ['violence'] }));
    const asked = gw.mock.requests.find((r) => r.model === 'judge-chat')!;
    expect(asked.body.messages[0]).toEqual({ role: 'system', content: 'Answer SAFE or UNSAFE: categories.' });
  });
});

describe('json answers', () => {
  const format = { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } } } };
  it('passes JSON matching the response_format schema, blocks JSON that does not, and text that is no JSON', async () => {
    gw.mock.setBehavior('m-compat', { reply: '{"n": 1}' });
    expect((await chat('json-model', 'json 1', { response_format: format })).status).toBe(200);
    gw.mock.setBehavior('m-compat', { reply: '{"n": "one"}' });
    const mismatch = await chat('json-model', 'json 2', { response_format: format });
    expect((await mismatch.json()).error).toMatchObject({ code: 'guardrail_blocked', message: expect.stringContaining('schema_mismatch') });
    gw.mock.setBehavior('m-compat', { reply: 'sure! {"n": 1}' });
    const text = await chat('json-model', 'json 3', { response_format: { type: 'json_object' } });
    expect((await text.json()).error).toMatchObject({ code: 'guardrail_blocked', message: expect.stringContaining('invalid_json') });
  });
});

describe('hot reload through the management API', () => {
  it('a guardrail attached to one more model applies at once, to a cache hit too', async () => {
    gw.mock.setBehavior('m-compat', { reply: 'Reach ann@example.com today.' });
    const first = await (await chat('plain-model', 'who to reach?')).json();
    expect(first.choices[0].message.content).toBe('Reach ann@example.com today.');

    const listed = await api(gw.gw, 'GET', '/v1/admin/guardrails/pii');
    expect(listed.body).toMatchObject({ id: 'pii', object: 'guardrail', action: 'redact', apply_to: { models: ['chat-model'] } });
    const put = await api(gw.gw, 'PUT', '/v1/admin/guardrails/pii', { apply_to: { models: ['chat-model', 'plain-model'] } });
    expect(put.status).toBe(200);

    const again = await chat('plain-model', 'who to reach?');
    expect(again.headers.get('x-cache')).toBe('hit');
    expect((await again.json()).choices[0].message.content).toBe('Reach [EMAIL] today.');
  });

  it('refuses a bad guardrail with a 400 naming the field, and creates and deletes one', async () => {
    const bad = await api(gw.gw, 'POST', '/v1/admin/guardrails', { id: 'bad', apply_to: { default: true }, check: { type: 'regex', patterns: ['(unclosed'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('patterns');
    const redactSize = await api(gw.gw, 'POST', '/v1/admin/guardrails', { id: 'bad2', action: 'redact', apply_to: { default: true }, check: { type: 'size', max_chars: 10 } });
    expect(redactSize.status).toBe(400);

    const created = await api(gw.gw, 'POST', '/v1/admin/guardrails', { id: 'no-weather', apply_to: { models: ['plain-model'] }, check: { type: 'regex', patterns: ['\\bweather\\b'], category: 'topic' } });
    expect(created.status).toBe(201);
    const blocked = await chat('plain-model', 'How is the Weather?');
    expect((await blocked.json()).error).toMatchObject({ code: 'guardrail_blocked', param: 'no-weather', message: expect.stringContaining('(topic)') });
    expect((await api(gw.gw, 'DELETE', '/v1/admin/guardrails/no-weather')).status).toBe(200);
    expect((await chat('plain-model', 'How is the Weather now?')).status).toBe(200);
  });
});
