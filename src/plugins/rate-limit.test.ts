import { describe, expect, it } from 'vitest';
import { createContext } from '../pipeline/context.ts';
import { createTestContext, testRuntime } from '../pipeline/test-context.ts';
import { actualTokens, reserveEstimate } from './rate-limit.ts';

const options = { default_reserve_tokens: 100, max_reserve_tokens: 10_000 };

/** A context as the inference route builds it: the parsed body and the text it came from. */
function received(body: Record<string, unknown>) {
  const base = createTestContext();
  const runtime = testRuntime();
  return createContext({
    request: base.request, endpoint: 'chat', runtime, snapshot: runtime.snapshot, ip: '127.0.0.1',
    body: body as never, rawBody: body, rawBodyText: JSON.stringify(body), signal: base.signal,
  });
}

describe('token reservation estimate', () => {
  it('sizes the prompt from the request text as received (4 characters a token), plus the completion allowance', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(4000) }], max_tokens: 50 };
    const ctx = received(body);
    expect(reserveEstimate(ctx, options)).toBe(Math.ceil(JSON.stringify(body).length / 4) + 50);
  });

  it('counts tools as prompt input, and caps the reservation', () => {
    const tools = [{ type: 'function', function: { name: 'f', description: 'd'.repeat(8000), parameters: {} } }];
    const withTools = received({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools });
    const without = received({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(reserveEstimate(withTools, options) - reserveEstimate(without, options)).toBeGreaterThanOrEqual(2000);
    expect(reserveEstimate(received({ model: 'm', messages: [{ role: 'user', content: 'y'.repeat(100_000) }] }), options)).toBe(10_000);
  });

  it('falls back to the messages when no request text was read (in-process contexts)', () => {
    const ctx = createTestContext({ messages: [{ role: 'user', content: 'z'.repeat(400) }] });
    expect(reserveEstimate(ctx, options)).toBe(Math.ceil(JSON.stringify(ctx.body.messages).length / 4) + 100);
  });

  it('settles a stream without usage on the estimate of what was sent and received', () => {
    const ctx = received({ model: 'm', messages: [{ role: 'user', content: 'hello there' }] });
    const outcome = { ...ctx.outcome, text: 'a'.repeat(40) };
    expect(actualTokens(ctx, outcome)).toBe(Math.ceil(ctx.rawBodyText!.length / 4) + 10);
    expect(actualTokens(ctx, { ...outcome, usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } })).toBe(7);
  });
});
