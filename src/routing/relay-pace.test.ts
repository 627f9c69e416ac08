import { describe, expect, it } from 'vitest';
import { createTestContext, testConfig, testRuntime } from '../pipeline/test-context.ts';
import type { ChatChunk } from '../providers/openai-types.ts';
import type { StreamTranslator } from '../providers/types.ts';
import { deploymentOf } from './breaker.ts';
import { MIN_PACE_TOKENS, latencyBook } from './latency.ts';
import { relay } from './relay.ts';

const chunk = (content: string | null, finish: 'stop' | null, completion?: number): ChatChunk => ({
  id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm',
  choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }],
  ...(completion === undefined ? {} : { usage: { prompt_tokens: 1, completion_tokens: completion, total_tokens: completion + 1 } }),
});

/** Relays one stream of `tokens` completion tokens that takes 300 ms, and returns the deployment's learned pace. */
async function paceAfter(tokens: number): Promise<number | undefined> {
  const runtime = testRuntime(testConfig(`providers:
  - { id: open, name: Open, type: compat, endpoint: 'http://open.test', models: [m] }
`));
  const ctx = createTestContext({ model: 'open/m', stream: true }, runtime);
  const target = { provider: runtime.current().providers.get('open')!, upstreamModel: 'm', requestedAs: 'open/m' };
  let clock = 0;
  async function* rest(): AsyncGenerator<ChatChunk[]> {
    clock += 300;
    yield [chunk(null, 'stop', tokens)];
  }
  const stream = { head: [chunk('hi', null)], rest: rest(), translator: { done: true } as unknown as StreamTranslator, abort() {} };
  for await (const _ of relay(ctx, { stream, target, index: 0, kind: 'first' }, { now: () => clock, setAbort() {} })) {
    // read to the end
  }
  return latencyBook(runtime).peek(deploymentOf('open', 'm'))?.perTokenMs;
}

describe('the pace lowest_latency learns from a relayed stream', () => {
  it('is learned from an answer long enough to show one', async () => {
    expect(await paceAfter(MIN_PACE_TOKENS)).toBeCloseTo(300 / MIN_PACE_TOKENS);
  });

  it('is not learned from a few tokens, whose time is mostly jitter', async () => {
    expect(await paceAfter(3)).toBeUndefined();
  });
});
