import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { client, startMockUpstream, startTestGateway, type MockUpstream, type TestGateway } from '../_setup.ts';

let mock: MockUpstream;
let a: TestGateway;
let b: TestGateway;
let scaled: TestGateway;

beforeAll(async () => {
  mock = await startMockUpstream();
  // Two instances on one Redis (a fresh prefix per run): breaker state is shared between them.
  const env = { MOCK_URL: `${mock.url}/v1`, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', GATEWAY_REDIS_PREFIX: `test-breaker-${randomUUID()}:` };
  a = await startTestGateway('breaker.yaml', env);
  b = await startTestGateway('breaker.yaml', env);
  scaled = await startTestGateway('recovery.yaml', { MOCK_URL: `${mock.url}/v1` });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await scaled?.close();
  await mock?.close();
});
beforeEach(() => mock.reset());

const ask = (gw: TestGateway, model: string, fallbacks: string[] = ['main/healthy']) =>
  client(gw).chat.completions.create({ model, fallbacks, messages: [{ role: 'user', content: 'hi' }] } as OpenAI.ChatCompletionCreateParamsNonStreaming);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const calls = (model: string) => mock.requests.filter((r) => r.model === model).length;

describe('circuit breaker per deployment', () => {
  it('opens after consecutive failures, is shared across instances, probes after the cool-down and closes', async () => {
    mock.setBehavior('sick', { status: 503 });
    expect((await ask(a, 'main/sick')).model).toBe('main/healthy');
    expect((await ask(b, 'main/sick')).model).toBe('main/healthy');
    expect(calls('sick')).toBe(2);

    // Open: neither instance calls the sick deployment; the provider's other model is unaffected.
    expect((await ask(a, 'main/sick')).model).toBe('main/healthy');
    expect((await ask(b, 'main/sick')).model).toBe('main/healthy');
    expect(calls('sick')).toBe(2);
    expect((await ask(a, 'main/other')).model).toBe('main/other');

    // Without a fallback the call is not refused: it goes to the open deployment anyway and
    // fails with that attempt's own error, never "cooling down"; that failure does not lengthen the period.
    const refused = await ask(a, 'main/sick', []).catch((e) => e);
    expect(refused).toBeInstanceOf(OpenAI.InternalServerError);
    expect(refused.status).toBe(503);
    expect(refused.error).toMatchObject({ code: 'upstream_unavailable' });
    expect(refused.message).not.toMatch(/cooling down/);
    expect(calls('sick')).toBe(3);

    // After the cool-down one probe goes through; it fails, so the circuit opens for longer (4 s).
    await sleep(2050);
    expect((await ask(a, 'main/sick')).model).toBe('main/healthy');
    expect(calls('sick')).toBe(4);
    await sleep(2050);
    expect((await ask(b, 'main/sick')).model).toBe('main/healthy');
    expect(calls('sick')).toBe(4); // still open: the cool-down doubled

    // The deployment recovers: the next probe succeeds and closes the circuit.
    mock.setBehavior('sick', {});
    await sleep(2100);
    expect((await ask(b, 'main/sick')).model).toBe('main/sick');
    expect((await ask(a, 'main/sick')).model).toBe('main/sick');
    expect(calls('sick')).toBe(6);
  });

  it('never refuses a recovered upstream: with every target open, the one whose period ends first is called', async () => {
    mock.setBehavior('sick', { status: 503 });
    mock.setBehavior('other', { status: 503 });
    // 'sick' opens well before 'other', so its period ends first. (Opened by the same calls, one as
    // the other's fallback, both could open in one millisecond: then neither ended first, and the
    // primary was called. It failed so on a fast machine.)
    for (let i = 0; i < 2; i++) await ask(a, 'main/sick', []).catch(() => {});
    await sleep(50);
    for (let i = 0; i < 2; i++) await ask(a, 'main/other', []).catch(() => {});
    expect(calls('sick')).toBe(2);
    expect(calls('other')).toBe(2);
    mock.setBehavior('sick', {});
    mock.setBehavior('other', {});
    const started = Date.now();
    const served = await ask(b, 'main/other', ['main/sick']);
    expect(served.model).toBe('main/sick');
    expect(Date.now() - started).toBeLessThan(500); // at once, not after the open period
    // The success closed that circuit: the next call goes straight to it.
    expect((await ask(a, 'main/sick', [])).model).toBe('main/sick');
  });

  it('does not count a 400 as a failure, and relays it as a 400 (never "cooling down")', async () => {
    mock.setBehavior('other', { status: 400 });
    for (let i = 0; i < 3; i++) {
      const error = await ask(a, 'main/other', []).catch((e) => e);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.message).not.toMatch(/cooling down/);
    }
    mock.setBehavior('other', {});
    expect((await ask(a, 'main/other', [])).model).toBe('main/other');
    expect(calls('other')).toBe(4);
  });

  it('uses a primary down for 60 s again within 30 s of its recovery (time scaled down 25 times)', async () => {
    // One call every 40 ms (1 s scaled); the primary fails for 2.4 s (60 s), the fallback carries the traffic.
    mock.setBehavior('sick', { status: 503 });
    const outageEnds = Date.now() + 2400;
    while (Date.now() < outageEnds) {
      expect((await ask(scaled, 'main/sick')).model).toBe('main/healthy');
      await sleep(40);
    }
    expect(calls('sick')).toBeLessThan(20); // the circuit kept most calls off the failing primary
    mock.setBehavior('sick', {});
    const recovered = Date.now();
    while ((await ask(scaled, 'main/sick')).model !== 'main/sick') await sleep(40);
    // 30 s scaled is 1200 ms; the cap (800 ms scaled, 20 s) is what bounds it.
    expect(Date.now() - recovered).toBeLessThan(1200);
  });
});
