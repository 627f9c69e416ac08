/**
 * What this instance has seen of each deployment's latency: its recent times to first token
 * (streamed and not apart: a JSON answer's "first token" is its whole body, read), its
 * time per streamed token, and its calls in flight. The hedge point (hedge.ts), the learned
 * first-token deadline (timeouts.ts) and the latency-following strategies (strategy.ts) read it.
 *
 * In memory and per instance (per worker process), never shared: each instance learns from its
 * own traffic within a few dozen calls, and nothing is written on the request path. Bounded: a
 * ring of the last WINDOW samples per kind per deployment, and at most MAX_DEPLOYMENTS entries.
 */
import type { Runtime } from '../pipeline/runtime.ts';

/** Samples kept per deployment and kind: the "recent" of the percentiles. */
export const WINDOW = 128;
/** Weight of the newest sample in the running means the strategies compare. */
const EWMA_ALPHA = 0.2;
/**
 * Fewest streamed tokens whose time per token is learned: a shorter answer's pace is mostly
 * network and event-loop jitter, and lowest_latency weighs the pace for ~100 tokens, so a few
 * milliseconds of jitter over three tokens would outweigh a real difference in time to first token.
 */
export const MIN_PACE_TOKENS = 16;
/** Percentiles are sorted again only after this many new samples, not once per attempt. */
const RESORT_EVERY = 8;
/** More deployments than any config lists: the oldest entry goes when a new one would pass it. */
const MAX_DEPLOYMENTS = 4096;

/** The last WINDOW samples of one kind, with their percentiles computed lazily. */
export class LatencyRing {
  private readonly values = new Float64Array(WINDOW);
  private pushed = 0;
  private sorted: Float64Array | null = null;
  private sinceSort = 0;
  /** Running mean, recent samples weighing most; undefined before the first sample. */
  mean: number | undefined;

  push(ms: number): void {
    this.values[this.pushed % WINDOW] = ms;
    this.pushed++;
    this.sinceSort++;
    this.mean = this.mean === undefined ? ms : this.mean + EWMA_ALPHA * (ms - this.mean);
  }

  get size(): number {
    return Math.min(this.pushed, WINDOW);
  }

  /** The p-th percentile (0..100) of the samples kept; NaN when there are none. */
  percentile(p: number): number {
    if (this.size === 0) return NaN;
    if (!this.sorted || this.sinceSort >= RESORT_EVERY) {
      this.sorted = this.values.slice(0, this.size).sort();
      this.sinceSort = 0;
    }
    const rank = Math.min(this.sorted.length - 1, Math.ceil((p / 100) * this.sorted.length) - 1);
    return this.sorted[Math.max(0, rank)]!;
  }
}

export class DeploymentLatency {
  readonly stream = new LatencyRing();
  readonly json = new LatencyRing();
  /** Running mean of the time per streamed token after the first. */
  perTokenMs: number | undefined;
  /** Upstream calls of this instance in flight: waiting for a first token, or a stream being relayed. */
  inFlight = 0;

  ring(stream: boolean): LatencyRing {
    return stream ? this.stream : this.json;
  }

  recordPerToken(ms: number): void {
    this.perTokenMs = this.perTokenMs === undefined ? ms : this.perTokenMs + EWMA_ALPHA * (ms - this.perTokenMs);
  }
}

export class LatencyBook {
  private readonly deployments = new Map<string, DeploymentLatency>();

  /** The deployment's statistics, created on first use. */
  of(deployment: string): DeploymentLatency {
    let stats = this.deployments.get(deployment);
    if (!stats) {
      if (this.deployments.size >= MAX_DEPLOYMENTS) this.deployments.delete(this.deployments.keys().next().value!);
      stats = new DeploymentLatency();
      this.deployments.set(deployment, stats);
    }
    return stats;
  }

  /** The deployment's statistics if it has any (reading never creates an entry). */
  peek(deployment: string): DeploymentLatency | undefined {
    return this.deployments.get(deployment);
  }
}

/** One book per running gateway (several gateways in one process, as in tests, keep theirs apart). */
const books = new WeakMap<Runtime, LatencyBook>();

export function latencyBook(runtime: Runtime): LatencyBook {
  let book = books.get(runtime);
  if (!book) books.set(runtime, (book = new LatencyBook()));
  return book;
}
