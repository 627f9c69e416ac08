/**
 * Fallbacks declared on model configs (`models[].fallbacks`): the failover of clients that send
 * no `fallbacks` of their own (a plain OpenAI client here; the Anthropic and Google SDKs get the
 * same from the shared route step). The request's own list wins; a caller is never served by a
 * model it may not use; the call log, costs and the answer's `model` follow the model that
 * served; the management API reads, checks and writes the field, keeping the file's comments.
 */
import { readFile } from 'node:fs/promises';
import OpenAI from 'openai';
import { beforeEach, describe, expect, it } from 'vitest';
import { api, client, useGateway, waitForLogRecord } from '../_setup.ts';

const env = useGateway('model-fallbacks.yaml');
type ApiError = InstanceType<typeof OpenAI.APIError>;
const NARROW_KEY = 'sk-bf-fallbacks-narrow-000000000000000000000000';

beforeEach(() => env.mock.reset());

const upstreamModels = () => env.mock.requests.map((r) => r.model);

function ask(model: string, extra: Record<string, unknown> = {}, key?: string) {
  return client(env.gw, key)
    .chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }], ...extra } as OpenAI.ChatCompletionCreateParamsNonStreaming)
    .withResponse();
}

describe('a model config with fallbacks', () => {
  it('falls over to the configured fallback when the request names none; the log shows both attempts and bills the model that served', async () => {
    const { data, response } = await ask('flaky');
    expect(data.model).toBe('backup');
    expect(data.choices[0]!.message.content).toBe('Echo: hello');
    // backup's own fallbacks (spare) are not chained: it served, and would not have been followed anyway.
    expect(upstreamModels()).toEqual(['fail-503', 'primary']);

    const record = await waitForLogRecord(env.gw, response.headers.get('x-request-id')!);
    expect(record).toMatchObject({ model: 'backup', provider: 'main', status: 'success', billed: true });
    expect(record.attempts).toEqual([
      expect.objectContaining({ model: 'flaky', provider: 'main', status: 503, kind: 'first' }),
      expect.objectContaining({ model: 'backup', provider: 'main', status: 200, kind: 'fallback' }),
    ]);
    // backup's prices (5 and 7 per 1K), not flaky's (1 and 1).
    const usage = record.response.usage as { prompt_tokens: number; completion_tokens: number };
    expect(record.cost.input).toBeCloseTo((usage.prompt_tokens * 5) / 1000, 9);
    expect(record.cost.output).toBeCloseTo((usage.completion_tokens * 7) / 1000, 9);
  });

  it('falls over in a stream too, each chunk naming the model that served', async () => {
    const stream = await client(env.gw).chat.completions.create({ model: 'flaky', messages: [{ role: 'user', content: 'hello' }], stream: true });
    let text = '';
    for await (const chunk of stream) {
      expect(chunk.model).toBe('backup');
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    expect(text).toBe('Echo: hello');
    expect(upstreamModels()).toEqual(['fail-503', 'primary']);
  });

  it("does not chain: a fallback's own fallbacks are not tried", async () => {
    env.mock.setBehavior('primary', { status: 503 });
    const error = await ask('flaky').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as ApiError).status).toBe(503);
    expect(upstreamModels()).toEqual(['fail-503', 'primary']);
  });

  it("lets the request's own fallbacks win, and an empty list asks for no fallback at all", async () => {
    const { data } = await ask('flaky', { fallbacks: ['main/other-up'] });
    expect(data.model).toBe('main/other-up');
    expect(upstreamModels()).toEqual(['fail-503', 'other-up']);

    env.mock.reset();
    const error = await ask('flaky', { fallbacks: [] }).catch((e: unknown) => e);
    expect((error as ApiError).status).toBe(503);
    expect(upstreamModels()).toEqual(['fail-503']);
  });

  it('never serves a key from a configured fallback it may not use: that one is skipped, the next permitted one serves', async () => {
    const { data } = await ask('guarded', {}, NARROW_KEY);
    expect(data.model).toBe('spare');
    expect(upstreamModels()).toEqual(['fail-503', 'spare-up']);

    env.mock.reset();
    // Only a forbidden fallback configured: the primary's failure is the answer.
    const error = await ask('flaky', {}, NARROW_KEY).catch((e: unknown) => e);
    expect((error as ApiError).status).toBe(503);
    expect(upstreamModels()).toEqual(['fail-503']);

    // Named by the request itself, a forbidden fallback is refused as before.
    env.mock.reset();
    const refused = await ask('flaky', { fallbacks: ['backup'] }, NARROW_KEY).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((refused as ApiError).error).toMatchObject({ code: 'model_not_permitted', param: 'fallbacks[0]' });
    expect(upstreamModels()).toEqual([]);
  });
});

describe('fallbacks through the management API', () => {
  const call = (method: string, path: string, body?: unknown) => api(env.gw, method, path, body);

  it('answers them with the model, refuses unknown, self and malformed ones naming the field', async () => {
    expect((await call('GET', '/v1/admin/models/flaky')).body).toMatchObject({ id: 'flaky', fallbacks: ['backup'] });
    expect((await call('GET', '/v1/admin/models/plain')).body.fallbacks).toBeUndefined();

    const cases: Array<[string, string, unknown, string, string]> = [
      ['POST', '/v1/admin/models', { id: 'fresh', provider: 'main', fallbacks: ['ghost'] }, 'fallbacks.0', 'names "ghost", which is neither'],
      ['POST', '/v1/admin/models', { id: 'fresh', provider: 'main', fallbacks: ['plain', 'fresh'] }, 'fallbacks.1', 'names the model itself'],
      ['PUT', '/v1/admin/models/plain', { fallbacks: ['main/unlisted'] }, 'fallbacks.0', 'does not list model "unlisted"'],
      ['PUT', '/v1/admin/models/spare', { fallbacks: ['main/spare-up'] }, 'fallbacks.0', 'names the model itself'],
      ['PUT', '/v1/admin/models/plain', { fallbacks: 'backup' }, 'fallbacks', 'must be array'],
      ['PUT', '/v1/admin/models/plain', { fallbacks: ['backup', 'backup'] }, 'fallbacks', 'duplicate'],
    ];
    const before = await readFile(env.gw.configFile, 'utf8');
    for (const [method, path, body, param, message] of cases) {
      const answer = await call(method, path, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', param, code: 'invalid_value' });
      expect(answer.body.error.message).toContain(message);
    }
    expect(await readFile(env.gw.configFile, 'utf8')).toBe(before);
  });

  it('writes them back keeping comments, routes with them at once, and clears them with null', async () => {
    const put = await call('PUT', '/v1/admin/models/guarded', { fallbacks: ['main/other-up', 'spare'] });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: 'guarded', object: 'model', fallbacks: ['main/other-up', 'spare'] });
    const yaml = await readFile(env.gw.configFile, 'utf8');
    expect(yaml).toContain('# Its first fallback is one the narrow key may not use.');
    expect(yaml).toContain("fallbacks: [backup]        # operator's failover list");
    expect(yaml).toContain('# Trailing comment.');
    expect(yaml).toMatch(/fallbacks: \[ ?main\/other-up, spare ?\]/);

    expect((await ask('guarded')).data.model).toBe('main/other-up');

    const created = await call('POST', '/v1/admin/models', { id: 'fresh', provider: 'main', upstream_model: 'fail-503', fallbacks: ['plain'] });
    expect(created.status).toBe(201);
    expect(created.body.fallbacks).toEqual(['plain']);
    env.mock.reset();
    expect((await ask('fresh')).data.model).toBe('plain');

    const cleared = await call('PUT', '/v1/admin/models/fresh', { fallbacks: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.fallbacks).toBeUndefined();
    expect(((await ask('fresh').catch((e: unknown) => e)) as ApiError).status).toBe(503);
    expect((await call('DELETE', '/v1/admin/models/fresh')).status).toBe(200);
  });

  it('refuses to delete a model another one falls over to (409 naming it)', async () => {
    const answer = await call('DELETE', '/v1/admin/models/backup');
    expect(answer.status).toBe(409);
    expect(answer.body.error).toMatchObject({ code: 'model_in_use' });
    expect(answer.body.error.message).toContain('flaky');
    expect((await call('GET', '/v1/admin/models/backup')).status).toBe(200);
  });
});
