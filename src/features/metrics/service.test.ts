import { describe, expect, it } from 'vitest';
import { createOutcome } from '../../pipeline/outcome.ts';
import { createMetrics } from './service.ts';

const served = () => ({ ...createOutcome(), status: 200, durationMs: 12, served: { model: 'm', provider: 'p', upstreamModel: 'm' } });

describe('metrics service', () => {
  it('counts per series and keeps the same totals over repeated scrapes', async () => {
    const metrics = createMetrics();
    metrics.observe({ model: 'm', outcome: served() });
    metrics.observe({ model: 'm', outcome: served() });
    metrics.observe({ model: 'm', outcome: { ...served(), status: 502 } });
    for (let scrape = 0; scrape < 2; scrape++) {
      const { body } = await metrics.render();
      expect(body).toContain('gateway_requests_total{model="m",provider="p",status="200"} 2');
      expect(body).toContain('gateway_requests_total{model="m",provider="p",status="502"} 1');
    }
    metrics.observe({ model: 'm', outcome: served() });
    expect((await metrics.render()).body).toContain('gateway_requests_total{model="m",provider="p",status="200"} 3');
  });

  it('labels a fallback by the bounded name the log step gives it', async () => {
    const metrics = createMetrics();
    const attempts = [
      { model: 'm', provider: 'p', status: 503, kind: 'first' },
      { model: 'p/random-name', provider: 'p', status: 200, kind: 'fallback' },
    ];
    metrics.observe({ model: 'p/(other)', labelOf: (name) => (name === 'm' ? name : 'p/(other)'), outcome: { ...served(), attempts } as never });
    const { body } = await metrics.render();
    expect(body).toContain('gateway_fallbacks_total{model="p/(other)"} 1');
    expect(body).not.toContain('random-name');
  });
});
