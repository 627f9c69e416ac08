import { describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { DEMO_KEY, MASTER_KEY, useGateway } from '../_setup.ts';

const env = useGateway('chat.yaml');

const get = (path: string, key?: string) => fetch(`${env.gw.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

describe('system endpoints', () => {
  it('health answers without auth, with component checks and latencies', async () => {
    const response = await get('/v1/system/health');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.status).toBe('healthy');
    expect(body.components).toEqual({ api: 'operational', database: 'operational', cache: 'operational', queue: 'operational' });
    expect(body.latency).toEqual({ api: expect.any(Number), database: expect.any(Number), cache: expect.any(Number) });
  });

  it('status needs a key and reports version, uptime, region and the last reload', async () => {
    expect((await get('/v1/system/status')).status).toBe(401);
    const body = await (await get('/v1/system/status', DEMO_KEY)).json();
    const pkg = JSON.parse(await readFile('package.json', 'utf8'));
    expect(body).toMatchObject({ status: 'operational', version: pkg.version, region: 'local', data_residency: 'local', last_reload: null });
    expect(body.management).toEqual({ writable: true, reason: null });
    expect(Number.isInteger(body.uptime)).toBe(true);
  });

  it('config reflects the live configuration', async () => {
    const body = await (await get('/v1/system/config', MASTER_KEY)).json();
    expect(body).toEqual({
      api: { rate_limit: 0, rate_limit_period: 60, max_concurrent_requests: 0 },
      models: { max_context_length: 128000, default_temperature: 0.7, default_max_tokens: 4096 },
      features: { streaming: true, function_calling: true, vision: true },
    });
  });
});
