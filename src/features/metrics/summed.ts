/**
 * Metrics fed from plain per-series totals. Recording is a Map lookup and a few additions;
 * the Prometheus view is built when scraped, O(series). prom-client's own `inc` and `observe`
 * hash and validate the label object on every call, which showed on the hot path for the
 * metrics every request touches.
 *
 * Series are keyed by the caller (label values joined by a separator no value contains), and
 * their label objects are built only the first time a key is seen.
 */
import { Counter, type CounterConfiguration, type Registry } from 'prom-client';

type Labels = Record<string, string>;

/** A prom-client Counter brought up to date from the totals at scrape time. */
export function summedCounter(config: CounterConfiguration<string>) {
  const series = new Map<string, { labels: Labels; value: number }>();
  new Counter({
    ...config,
    collect() {
      this.reset();
      for (const { labels, value } of series.values()) this.inc(labels, value);
    },
  });
  return {
    /** Add `value` to the series `key`. */
    add(key: string, labels: () => Labels, value: number) {
      const found = series.get(key);
      if (found) found.value += value;
      else series.set(key, { labels: labels(), value });
    },
  };
}

interface HistogramSeries {
  labels: Labels;
  /** Observations per bucket (not cumulative); the last one is +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * A histogram registered in `registry` as a metric of its own: prom-client's registry only
 * asks a metric for `get()`, and this one answers in the shape of prom-client's Histogram, so
 * the exposition is the same (`_bucket` with cumulative `le` counts, `_sum`, `_count`).
 * Each value carries all its labels in `labels`, as Histogram's `get()` does: the cluster
 * aggregation (`AggregatorRegistry.aggregate`) tells series apart by `labels` alone.
 */
export function summedHistogram(config: { name: string; help: string; buckets: number[]; registry: Registry }) {
  const { name, help, buckets, registry } = config;
  const series = new Map<string, HistogramSeries>();
  registry.registerMetric({
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
      for (const s of series.values()) {
        let cumulative = 0;
        for (const [i, bound] of buckets.entries()) {
          cumulative += s.counts[i]!;
          values.push({ labels: { le: bound, ...s.labels }, value: cumulative, metricName: `${name}_bucket` });
        }
        values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${name}_bucket` });
        values.push({ labels: s.labels, value: s.sum, metricName: `${name}_sum` });
        values.push({ labels: s.labels, value: s.count, metricName: `${name}_count` });
      }
      return { name, help, type: 'histogram', aggregator: 'sum', values };
    },
    reset() {
      series.clear();
    },
  } as unknown as Parameters<Registry['registerMetric']>[0]);
  return {
    /** Record `value` in the series `key`. */
    observe(key: string, labels: () => Labels, value: number) {
      let s = series.get(key);
      if (!s) series.set(key, (s = { labels: labels(), counts: new Array(buckets.length + 1).fill(0), sum: 0, count: 0 }));
      let i = 0;
      while (i < buckets.length && value > buckets[i]!) i++;
      s.counts[i]!++;
      s.sum += value;
      s.count++;
    },
  };
}
