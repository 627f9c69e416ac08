import { describe, expect, it } from 'vitest';
import { createOutcome } from '../../pipeline/outcome.ts';
import { createMetrics } from './service.ts';

const served = () => ({ ...createOutcome(), status: 200, durationMs: 12, served: { model: 'm', provider: 'p', upstreamModel: 'm' } });

describe('metrics service', () => {
  it('counts per series and keeps the same totals over repeated scrapes', async () => {
    const metrics = createMetrics();
    metrics.observe({ model: 'm', endpoint: 'chat', outcome: served() });
    metrics.observe({ model: 'm', endpoint: 'chat', outcome: served() });
    metrics.observe({ model: 'm', endpoint: 'chat', outcome: { ...served(), status: 502 } });
    for (let scrape = 0; scrape < 2; scrape++) {
      const { body } = await metrics.render();
      expect(body).toContain('gateway_requests_total{model="m",provider="p",endpoint="chat",status="200",outcome="ok"} 2');
      expect(body).toContain('gateway_requests_total{model="m",provider="p",endpoint="chat",status="502",outcome="server_error"} 1');
    }
    metrics.observe({ model: 'm', endpoint: 'chat', outcome: served() });
    expect((await metrics.render()).body).toContain('gateway_requests_total{model="m",provider="p",endpoint="chat",status="200",outcome="ok"} 3');
  });

  it('counts a stream that broke after its 200 as a server error, apart from refusals and clients that left', async () => {
    const metrics = createMetrics();
    const broken = { code: 'stream_interrupted', message: 'The upstream broke off.', type: 'upstream_error' };
    metrics.observe({ model: 'm', endpoint: 'chat', outcome: { ...served(), streamed: true, error: broken } });
    metrics.observe({ model: 'm', endpoint: 'chat', outcome: { ...served(), streamed: true, aborted: true } });
    metrics.observe({ model: 'm', endpoint: 'chat', outcome: { ...served(), status: 429 } });
    metrics.observe({ model: 'm', endpoint: 'chat', outcome: { ...served(), status: 499, aborted: true } });
    const { body } = await metrics.render();
    expect(body).toContain('gateway_requests_total{model="m",provider="p",endpoint="chat",status="200",outcome="server_error"} 1');
    expect(body).toContain('gateway_requests_total{model="m",provider="p",endpoint="chat",status="200",outcome="aborted"} 1');
    expect(body).toContain('gateway_requests_total{model="m",provider="p",endpoint="chat",status="429",outcome="client_error"} 1');
    expect(body).toContain('gateway_requests_total{model="m",provider="p",endpoint="chat",status="499",outcome="aborted"} 1');
  });

  it('tells the interfaces apart in the per-request series, not in tokens or cost', async () => {
    const metrics = createMetrics();
    metrics.observe({ model: 'm', endpoint: 'messages', outcome: { ...served(), ttfbMs: 5 } });
    metrics.observe({ model: 'm', endpoint: 'generate_content', outcome: served() });
    metrics.observe({ model: 'm', endpoint: 'generate_content', outcome: served() });
    metrics.countRefused(Object.assign(new Error('no key'), { status: 401 }), 'messages');
    const { body } = await metrics.render();
    expect(body).toContain('gateway_requests_total{model="m",provider="p",endpoint="messages",status="200",outcome="ok"} 1');
    expect(body).toContain('gateway_requests_total{model="m",provider="p",endpoint="generate_content",status="200",outcome="ok"} 2');
    expect(body).toContain('gateway_request_duration_seconds_count{model="m",provider="p",endpoint="generate_content"} 2');
    expect(body).toContain('gateway_time_to_first_token_seconds_count{model="m",provider="p",endpoint="messages"} 1');
    // Not a GatewayError: counted as the 500 it would answer.
    expect(body).toContain('gateway_requests_total{model="",provider="",endpoint="messages",status="500",outcome="server_error"} 1');
  });

  it('does not count a target the gateway passed over as an upstream error', async () => {
    const metrics = createMetrics();
    const attempts = [
      { model: 'b/m', provider: 'b', upstreamModel: 'm', status: 0, errorCode: 'unsupported_parameter', latencyMs: 0, kind: 'first', refused: true },
      { model: 'c/m', provider: 'c', upstreamModel: 'm', status: 0, errorCode: 'circuit_open', latencyMs: 0, kind: 'fallback', refused: true },
      { model: 'd/m', provider: 'd', upstreamModel: 'm', status: 0, errorCode: 'upstream_unavailable', latencyMs: 3, kind: 'fallback' },
      { model: 'p/m', provider: 'p', upstreamModel: 'm', status: 200, errorCode: null, latencyMs: 9, kind: 'fallback' },
    ] as const;
    metrics.observe({ model: 'm', endpoint: 'chat', outcome: { ...served(), attempts: [...attempts] } });
    const { body } = await metrics.render();
    expect(body).not.toMatch(/gateway_upstream_errors_total\{provider="[bc]"/);
    expect(body).toContain('gateway_upstream_errors_total{provider="d",status="0"} 1');
    expect(body).toContain('gateway_upstream_skipped_total{provider="b",reason="unsupported"} 1');
    expect(body).toContain('gateway_upstream_skipped_total{provider="c",reason="circuit_open"} 1');
  });

  it('labels a fallback by the bounded name the log step gives it', async () => {
    const metrics = createMetrics();
    const attempts = [
      { model: 'm', provider: 'p', status: 503, kind: 'first' },
      { model: 'p/random-name', provider: 'p', status: 200, kind: 'fallback' },
    ];
    metrics.observe({ model: 'p/(other)', endpoint: 'chat', labelOf: (name) => (name === 'm' ? name : 'p/(other)'), outcome: { ...served(), attempts } as never });
    const { body } = await metrics.render();
    expect(body).toContain('gateway_fallbacks_total{model="p/(other)"} 1');
    expect(body).not.toContain('random-name');
  });

  it('exports a total kept elsewhere as a counter read at scrape time', async () => {
    const metrics = createMetrics();
    let dropped = 0;
    metrics.counter('log_queue_dropped_total', 'Dropped.', () => dropped);
    expect((await metrics.render()).body).toContain('# TYPE gateway_log_queue_dropped_total counter\ngateway_log_queue_dropped_total 0\n');
    dropped = 4;
    expect((await metrics.render()).body).toContain('gateway_log_queue_dropped_total 4\n');
  });

  it('adds the process and Node.js runtime metrics when asked, on its own registry', async () => {
    const withRuntime = (await createMetrics('gateway_', { runtime: true }).render()).body;
    expect(withRuntime).toMatch(/^process_cpu_seconds_total \d/m);
    expect(withRuntime).toMatch(/^process_resident_memory_bytes \d/m);
    expect(withRuntime).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect((await createMetrics().render()).body).not.toContain('process_cpu_seconds_total');
  });
});
