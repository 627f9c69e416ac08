/**
 * The example guardrail as a plugin author tests theirs: its options validated by its schema,
 * then its step run on a test context with a stub upstream.
 */
import { describe, expect, it } from 'vitest';
import { validateOptions } from '../../src/pipeline/load-plugin.ts';
import { createTestContext } from '../../src/pipeline/test-context.ts';
import { chatRenderer } from '../../src/pipeline/render.ts';
import { GatewayError } from '../../src/kernel/errors.ts';
import type { ChatCompletion } from '../../src/providers/openai-types.ts';
import noCompetitors from './no-competitors.ts';

const silent = { info() {}, warn() {}, error() {} };

async function step(options: Record<string, unknown>) {
  const checked = await validateOptions({ name: 'no-competitors', module: './no-competitors.ts', enabled: true, options }, noCompetitors as never);
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  const instance = await noCompetitors.setup(checked.options as never, { logger: silent, now: Date.now, runtime: undefined as never });
  return instance.handle!;
}

/** A stub upstream: records what it was sent and answers `reply`. */
function upstream(reply: string) {
  const seen: string[] = [];
  const next = (ctx: ReturnType<typeof createTestContext>) => async () => {
    seen.push(String(ctx.body.messages.at(-1)!.content));
    const completion: ChatCompletion = { id: 'c', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }] };
    ctx.outcome.response = completion;
    return chatRenderer.json(ctx, completion);
  };
  return { seen, next };
}

describe('no-competitors (example guardrail)', () => {
  it('redacts by default, in the prompt before the upstream and in the answer before the client', async () => {
    const handle = await step({ names: ['Acme'] });
    const ctx = createTestContext({ messages: [{ role: 'user', content: 'Is ACME better?' }] });
    const { seen, next } = upstream('Acme is fine.');
    const response = await handle(ctx, next(ctx));
    expect(seen).toEqual(['Is [COMPETITOR] better?']);
    expect((await response.json()).choices[0].message.content).toBe('[COMPETITOR] is fine.');
    expect(ctx.outcome.guardrails?.map((v) => [v.stage, v.result])).toEqual([['input', 'redacted'], ['output', 'redacted']]);
  });

  it('blocks with guardrail_blocked when configured to, before the upstream is called', async () => {
    const handle = await step({ names: ['Globex'], action: 'block', stage: 'input' });
    const ctx = createTestContext({ messages: [{ role: 'user', content: 'compare with globex' }] });
    const { seen, next } = upstream('ok');
    const error = await handle(ctx, next(ctx)).catch((e: unknown) => e);
    expect(GatewayError.is(error) && error.code).toBe('guardrail_blocked');
    expect(seen).toEqual([]);
  });

  it('refuses options without names', async () => {
    const checked = await validateOptions({ name: 'no-competitors', module: './x.ts', enabled: true, options: {} }, noCompetitors as never);
    expect(checked.ok).toBe(false);
  });
});
