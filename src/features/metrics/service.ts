/**
 * Prometheus metrics (prom-client) on a per-gateway Registry (never the global default, so
 * several gateways in one process, as in tests, keep separate counts). Fed once per finished
 * exchange by the log step's onComplete, off the request path.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry, type Aggregator } from 'prom-client';
import { isBilled } from '../logs/billing.ts';
import type { CallObserver } from '../../plugins/log.ts';
import type { Endpoint } from '../../pipeline/context.ts';
import { GatewayError } from '../../kernel/errors.ts';
import { createOutcome } from '../../pipeline/outcome.ts';
import { requestOutcome } from '../../pipeline/request-outcome.ts';
import { summedCounter, summedHistogram } from './summed.ts';

export interface MetricsService extends CallObserver {
  readonly registry: Registry;
  /** A gauge read at scrape time (e.g. the log queue depth). */
  /** `aggregator`: how a group of workers combines it (prom-client's; default `sum`). */
  gauge(name: string, help: string, read: () => number, aggregator?: Aggregator): void;
  /** A counter read at scrape time from a total kept elsewhere, which only grows (e.g. the log records dropped). */
  counter(name: string, help: string, read: () => number): void;
  /**
   * An inference request refused before the pipeline (no key, a body that does not parse or
   * validate): counted in gateway_requests_total with no model or provider, and not timed.
   */
  countRefused(error: unknown, endpoint: Endpoint): void;
  render(): Promise<{ body: string; contentType: string }>;
}

export interface MetricsOptions {
  /** Also export prom-client's process_* and nodejs_* metrics (memory, CPU, event-loop lag, GC). */
  runtime?: boolean;
}

const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const TTFT_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];

/** Refusals the gateway itself made (no upstream attempt), by error code. */
const REJECTIONS: Record<string, string> = {
  rate_limit_exceeded: 'rate_limit',
  insufficient_quota: 'quota',
  // The concurrency step answers 503 when no slot frees within api.queue_timeout_ms.
  queue_timeout: 'concurrency',
};

export function createMetrics(prefix = 'gateway_', options: MetricsOptions = {}): MetricsService {
  const registry = new Registry();
  if (options.runtime) collectDefaultMetrics({ register: registry });
  const requests = summedCounter({
    name: `${prefix}requests_total`,
    // `status` is the status sent, which a stream sends before it can break: `outcome` says how it ended.
    help: 'Inference requests by model, provider, endpoint (chat, responses, embeddings, messages, generate_content), HTTP status and outcome (ok, client_error, server_error, aborted).',
    labelNames: ['model', 'provider', 'endpoint', 'status', 'outcome'],
    registers: [registry],
  });
  const latency = summedHistogram({
    name: `${prefix}request_duration_seconds`,
    help: 'Time from request to last byte.',
    buckets: LATENCY_BUCKETS,
    registry,
  });
  const ttft = summedHistogram({
    name: `${prefix}time_to_first_token_seconds`,
    help: 'Time to the first streamed content chunk.',
    buckets: TTFT_BUCKETS,
    registry,
  });
  const tokens = summedCounter({
    name: `${prefix}tokens_total`,
    help: 'Tokens by model, provider and kind (prompt, completion).',
    labelNames: ['model', 'provider', 'kind'],
    registers: [registry],
  });
  const cost = summedCounter({
    name: `${prefix}cost_total`,
    help: 'Billed cost by model and currency.',
    labelNames: ['model', 'provider', 'currency'],
    registers: [registry],
  });
  const upstreamErrors = new Counter({
    name: `${prefix}upstream_errors_total`,
    help: 'Failed upstream attempts by provider and status (0 = connect error or timeout).',
    labelNames: ['provider', 'status'],
    registers: [registry],
  });
  const skipped = new Counter({
    name: `${prefix}upstream_skipped_total`,
    help: 'Targets passed over without a call, by provider and reason (circuit_open, unsupported: a request its format cannot carry).',
    labelNames: ['provider', 'reason'],
    registers: [registry],
  });
  const fallbacks = new Counter({
    name: `${prefix}fallbacks_total`,
    help: 'Attempts on another target after a failure (retries excluded).',
    labelNames: ['model'],
    registers: [registry],
  });
  const retries = new Counter({
    name: `${prefix}upstream_retries_total`,
    help: 'Retries on the same target.',
    labelNames: ['provider'],
    registers: [registry],
  });
  const hedges = new Counter({
    name: `${prefix}hedges_total`,
    help: 'Requests whose late first token had another target started beside it (a hedge).',
    labelNames: ['model'],
    registers: [registry],
  });
  const hedgeWins = new Counter({
    name: `${prefix}hedge_wins_total`,
    help: 'Hedges whose call sent its first token first (and answered).',
    labelNames: ['model'],
    registers: [registry],
  });
  const hedgeTokens = new Counter({
    name: `${prefix}hedge_tokens_total`,
    help: 'Upstream tokens the calls that lost a hedged race cost (prompt estimated; never billed to the client).',
    labelNames: ['model'],
    registers: [registry],
  });
  const rejections = new Counter({
    name: `${prefix}rejections_total`,
    help: 'Requests refused by the gateway: rate limit, quota or concurrency.',
    labelNames: ['reason'],
    registers: [registry],
  });

  const guardrails = new Counter({
    name: `${prefix}guardrail_verdicts_total`,
    help: 'Guardrail verdicts by guardrail, stage, action and result (pass, blocked, redacted, flagged, error).',
    labelNames: ['guardrail', 'stage', 'action', 'result'],
    registers: [registry],
  });

  return {
    registry,
    observe({ model, endpoint, labelOf = (name: string) => name, outcome, record }) {
      // Guardrail names come from gateway.yaml (or a plugin): a bounded set of series.
      if (outcome.guardrails) for (const v of outcome.guardrails) guardrails.inc({ guardrail: v.guardrail, stage: v.stage, action: v.action, result: v.result });
      const provider = outcome.served?.provider ?? '';
      const labels = { model, provider };
      // Series keys: the label values joined by a character no model or provider id contains.
      const series = `${model}\u0000${provider}\u0000`;
      // The per-request series also say which interface the call came in through (a handful of values).
      const perRequest = { model, provider, endpoint };
      const perRequestOf = () => perRequest;
      const requestSeries = `${series}${endpoint}\u0000`;
      const status = String(outcome.status);
      const ended = requestOutcome(outcome);
      requests.add(`${requestSeries}${status}\u0000${ended}`, () => ({ ...perRequest, status, outcome: ended }), 1);
      latency.observe(requestSeries, perRequestOf, outcome.durationMs / 1000);
      if (outcome.ttfbMs !== undefined) ttft.observe(requestSeries, perRequestOf, outcome.ttfbMs / 1000);
      if (record) {
        if (record.request_tokens) tokens.add(`${series}prompt`, () => ({ ...labels, kind: 'prompt' }), record.request_tokens);
        if (record.response_tokens) tokens.add(`${series}completion`, () => ({ ...labels, kind: 'completion' }), record.response_tokens);
        if (isBilled(record)) {
          // A Prometheus counter is a float anyway: the exact decimal cost lives in the call log.
          const amount = (record.request_tokens * record.input_price + record.response_tokens * record.output_price) / 1000;
          const currency = record.currency;
          if (amount > 0) cost.add(series + currency, () => ({ ...labels, currency }), amount);
        }
      }
      for (const attempt of outcome.attempts) {
        // A target the gateway passed over was never called: no fault of the upstream's.
        if (attempt.cancelled) continue; // lost a hedged race: the gateway cancelled it, no upstream fault
        if (attempt.refused) skipped.inc({ provider: attempt.provider, reason: attempt.errorCode === 'circuit_open' ? 'circuit_open' : 'unsupported' });
        else if (attempt.status < 200 || attempt.status >= 300) upstreamErrors.inc({ provider: attempt.provider, status: String(attempt.status) });
        if (attempt.kind === 'fallback') fallbacks.inc({ model: labelOf(attempt.model) });
        else if (attempt.kind === 'retry') retries.inc({ provider: attempt.provider });
      }
      if (!outcome.attempts.some((a) => a.kind) && outcome.attempts.length > 1) {
        // Attempts without a kind: every change of target after the first is a fallback.
        for (let i = 1; i < outcome.attempts.length; i++) {
          const a = outcome.attempts[i]!;
          const prev = outcome.attempts[i - 1]!;
          if (a.model !== prev.model || a.provider !== prev.provider) fallbacks.inc({ model: labelOf(a.model) });
        }
      }
      if (outcome.hedge) {
        // Labelled by the model asked for (whose first token was late), not the one that served.
        const asked = outcome.attempts[0]?.model;
        const hedgeLabels = { model: asked ? labelOf(asked) : model };
        hedges.inc(hedgeLabels);
        if (outcome.hedge.won) hedgeWins.inc(hedgeLabels);
        if (outcome.hedge.tokens > 0) hedgeTokens.inc(hedgeLabels, outcome.hedge.tokens);
      }
      const reason = outcome.attempts.length === 0 ? REJECTIONS[outcome.error?.code ?? ''] : undefined;
      if (reason) rejections.inc({ reason });
    },
    countRefused(error, endpoint) {
      const status = GatewayError.is(error) ? error.status : 500;
      const ended = requestOutcome({ ...createOutcome(), status });
      requests.add(`\u0000\u0000${endpoint}\u0000${status}\u0000${ended}`, () => ({ model: '', provider: '', endpoint, status: String(status), outcome: ended }), 1);
    },
    gauge(name, help, read, aggregator = 'sum') {
      new Gauge({
        name: `${prefix}${name}`,
        help,
        registers: [registry],
        aggregator,
        collect() {
          this.set(read());
        },
      });
    },
    counter(name, help, read) {
      new Counter({
        name: `${prefix}${name}`,
        help,
        registers: [registry],
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    },
    async render() {
      return { body: await registry.metrics(), contentType: registry.contentType };
    },
  };
}
