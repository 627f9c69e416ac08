/** Percentiles and summaries over latency samples (milliseconds, full float precision). */

/** The q-quantile (0..1) of sorted samples, nearest-rank. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export interface Summary {
  count: number;
  p50: number;
  p99: number;
  mean: number;
}

export function summarize(samples: number[]): Summary {
  const sorted = Float64Array.from(samples).sort();
  let total = 0;
  for (const value of sorted) total += value;
  return { count: sorted.length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), mean: total / (sorted.length || 1) };
}
