import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { summedHistogram } from './summed.ts';

const BUCKETS = [0.05, 0.1, 0.25, 1];

describe('summedHistogram', () => {
  it('renders exactly what a prom-client Histogram fed the same observations renders', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const histogram = summedHistogram({ name: 'latency_seconds', help: 'Latency.', buckets: BUCKETS, registry: ours });
    const reference = new Histogram({ name: 'latency_seconds', help: 'Latency.', labelNames: ['model', 'provider'], buckets: BUCKETS, registers: [theirs] });
    // On a bound, between bounds, past the last one, in two series.
    const observations: Array<[string, string, number]> = [
      ['m', 'p', 0.05], ['m', 'p', 0.07], ['m', 'p', 0.3], ['m', 'p', 7], ['m2', 'p', 0.01], ['m', 'p', 0.1],
    ];
    for (const [model, provider, value] of observations) {
      histogram.observe(`${model}\u0000${provider}`, () => ({ model, provider }), value);
      reference.observe({ model, provider }, value);
    }
    const rendered = await ours.metrics();
    expect(rendered).toBe(await theirs.metrics());
    expect(rendered).toContain('latency_seconds_bucket{le="0.1",model="m",provider="p"} 3');
    expect(rendered).toContain('latency_seconds_bucket{le="+Inf",model="m",provider="p"} 5');
    expect(rendered).toContain('latency_seconds_count{model="m2",provider="p"} 1');
  });

  it('keeps series and buckets apart when several workers\' registries are aggregated', async () => {
    const workers = [new Registry(), new Registry()];
    const histograms = workers.map((registry) => summedHistogram({ name: 'h', help: 'h', buckets: BUCKETS, registry }));
    histograms[0]!.observe('a', () => ({ model: 'a' }), 0.07);
    histograms[0]!.observe('b', () => ({ model: 'b' }), 0.5);
    histograms[1]!.observe('a', () => ({ model: 'a' }), 0.2);
    const snapshots = await Promise.all(workers.map((registry) => registry.getMetricsAsJSON()));
    const rendered = await AggregatorRegistry.aggregate(snapshots).metrics();
    expect(rendered).toContain('h_bucket{le="0.1",model="a"} 1\n');
    expect(rendered).toContain('h_bucket{le="0.25",model="a"} 2\n');
    expect(rendered).toContain('h_bucket{le="0.25",model="b"} 0\n');
    expect(rendered).toContain('h_count{model="a"} 2\n');
    expect(rendered).toContain('h_count{model="b"} 1\n');
    expect(rendered).toMatch(/^h_sum\{model="a"\} 0\.27\d*$/m);
  });

  it('starts over when the registry is reset', async () => {
    const registry = new Registry();
    const histogram = summedHistogram({ name: 'h', help: 'h', buckets: BUCKETS, registry });
    histogram.observe('a', () => ({ model: 'a' }), 0.2);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('h_count');
  });
});
