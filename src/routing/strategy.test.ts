import { describe, expect, it } from 'vitest';
import { testConfig } from '../pipeline/test-context.ts';
import type { Target } from '../providers/types.ts';
import { LatencyBook } from './latency.ts';
import { orderTargets } from './strategy.ts';

const config = testConfig('providers: []\n');
const model = { id: 'duo' } as Target['model'];
const target = (provider: string, of = model, requestedAs = 'duo'): Target =>
  ({ provider: { id: provider } as Target['provider'], model: of, upstreamModel: 'm', requestedAs });
/** Never explores (random() is 0.99 >= 0.1). */
const noExplore = () => 0.99;
const ids = (targets: Target[]) => targets.map((t) => t.provider.id);

describe('orderTargets', () => {
  it('keeps the weighted order by default, and the same array', () => {
    const targets = [target('a'), target('b')];
    expect(orderTargets(targets, config, new LatencyBook(), true, noExplore)).toBe(targets);
  });

  it('lowest_latency: the fastest deployment first, an unmeasured one before it, fallbacks kept after', () => {
    const fast = { ...model!, strategy: 'lowest_latency' as const };
    const book = new LatencyBook();
    book.of('a/m').stream.push(300);
    book.of('b/m').stream.push(100);
    const fallback = target('z', undefined, 'z/m');
    expect(ids(orderTargets([target('a', fast), target('b', fast), fallback], config, book, true, noExplore))).toEqual(['b', 'a', 'z']);
    // Time per token counts for streams (100 tokens): b streams slowly.
    book.of('b/m').recordPerToken(10);
    expect(ids(orderTargets([target('a', fast), target('b', fast)], config, book, true, noExplore))).toEqual(['a', 'b']);
    // JSON calls have their own samples: none yet, so both unmeasured, order kept.
    expect(ids(orderTargets([target('a', fast), target('b', fast)], config, book, false, noExplore))).toEqual(['a', 'b']);
    expect(ids(orderTargets([target('a', fast), target('b', fast), target('c', fast)], config, book, true, noExplore))).toEqual(['c', 'a', 'b']);
    // One request in ten explores: the weighted order as resolved.
    expect(ids(orderTargets([target('b', fast), target('a', fast)], config, book, true, () => 0.05))).toEqual(['b', 'a']);
  });

  it('least_busy: fewest calls in flight first, ties in the weighted order', () => {
    const busy = { ...model!, strategy: 'least_busy' as const };
    const book = new LatencyBook();
    book.of('a/m').inFlight = 3;
    book.of('b/m').inFlight = 1;
    expect(ids(orderTargets([target('a', busy), target('b', busy), target('c', busy)], config, book, true))).toEqual(['c', 'b', 'a']);
    const global = testConfig('providers: []\nrouting: { strategy: least_busy }\n');
    expect(ids(orderTargets([target('a'), target('b')], global, book, true))).toEqual(['b', 'a']);
  });
});
