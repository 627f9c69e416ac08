import { describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
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

  it('health answers HEAD as GET, without a body (load balancers probe that way)', async () => {
    const response = await fetch(`${env.gw.url}/v1/system/health`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it("a refused reload's details (file, line, reason) go to admins only; a member learns that it failed", async () => {
    const good = await readFile(env.gw.configFile, 'utf8');
    await writeFile(env.gw.configFile, `${good}\nbogus_setting: 1\n`);
    try {
      expect((await env.gw.gateway.config.reload()).ok).toBe(false);
      const member = await (await get('/v1/system/status', DEMO_KEY)).json();
      expect(member.last_reload).toMatchObject({ ok: false, error: 'The last reload was refused (details for admins).' });
      expect(JSON.stringify(member)).not.toContain(env.gw.configFile);
      expect(member.management.writable).toBe(true);
      const admin = await (await get('/v1/system/status', MASTER_KEY)).json();
      expect(admin.last_reload.error).toContain('bogus_setting');
    } finally {
      await writeFile(env.gw.configFile, good);
      expect((await env.gw.gateway.config.reload()).ok).toBe(true);
    }
  });

  it('status needs a key and reports version, uptime, region and the last reload', async () => {
    expect((await get('/v1/system/status')).status).toBe(401);
    const body = await (await get('/v1/system/status', DEMO_KEY)).json();
    const pkg = JSON.parse(await readFile('package.json', 'utf8'));
    expect(body).toMatchObject({ status: 'operational', version: pkg.version, region: 'local', data_residency: 'local' });
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

  it("reports as max_context_length the longest context an active model serves", async () => {
    const good = await readFile(env.gw.configFile, 'utf8');
    await writeFile(env.gw.configFile, good.replace('context_length: 128000', 'context_length: 1000000'));
    try {
      expect((await env.gw.gateway.config.reload()).ok).toBe(true);
      expect((await (await get('/v1/system/config', MASTER_KEY)).json()).models.max_context_length).toBe(1_000_000);
    } finally {
      await writeFile(env.gw.configFile, good);
      await env.gw.gateway.config.reload();
    }
  });
});
