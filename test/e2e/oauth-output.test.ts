/**
 * The OAuth server writes nothing but the gateway's JSON log: oidc-provider's own console lines
 * (its error-page NOTICE, which any anonymous `/oauth/authorize?client_id=x` set off, and its
 * load-time "Unsupported runtime" warning) are replaced by our error page and log lines. This file
 * is the first in its process to load oidc-provider, so the load-time warning is seen here.
 */
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { freePort } from '../_process.ts';
import { recordingLogger, startTestGateway, type TestGateway } from '../_setup.ts';

describe('OAuth server output', () => {
  const logger = recordingLogger();
  const printed: string[] = [];
  const spies: MockInstance[] = [];
  let gw: TestGateway;
  let base: string;
  beforeAll(async () => {
    // Every way a library prints, recorded (and kept off the test's output).
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      spies.push(vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(' '))));
    }
    const write = process.stdout.write.bind(process.stdout);
    spies.push(vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown, ...rest: unknown[]) => (printed.push(String(chunk)), write(chunk as string, ...(rest as []))) as boolean));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    gw = await startTestGateway('oauth.yaml', { PORT: String(port), GATEWAY_BASE_URL: base }, { logger });
  });
  afterAll(async () => {
    for (const spy of spies) spy.mockRestore();
    await gw?.close();
  });

  it('answers an authorize request of an unknown client with our error page and one JSON log line, printing nothing', async () => {
    const response = await fetch(`${base}/oauth/authorize?client_id=x`, { headers: { accept: 'text/html', 'accept-language': 'en' } });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const body = await response.text();
    expect(body).toContain('<title>Authorization error</title>');
    expect(body).toContain('<code>invalid_client</code>');
    expect(body).not.toContain('oops');
    expect(logger.lines).toContainEqual({ level: 'info', message: 'oauth request refused', fields: expect.objectContaining({ status: 400, error: 'invalid_client' }) });
    expect(printed.filter((line) => /oidc-provider/.test(line))).toEqual([]);
  });

  it('answers the OAuth error JSON to a client that asks for JSON', async () => {
    const response = await fetch(`${base}/oauth/authorize?client_id=x`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: 'invalid_client', error_description: 'client is invalid' });
  });

  it('renders the errors of the other endpoints the same way for a browser (here userinfo without a token)', async () => {
    const response = await fetch(`${base}/oauth/userinfo`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(401);
    expect(await response.text()).toContain('<code>invalid_token</code>');
    expect(printed.filter((line) => /oidc-provider/.test(line))).toEqual([]);
  });

  it("sends oidc-provider's warning about an unsupported Node.js to the JSON log, not the console", () => {
    const lts = process.release.lts;
    // oidc-provider's own test (lib/index.js): an LTS release from Jod (22) on is supported.
    const supported = typeof lts === 'string' && lts.charCodeAt(0) >= 'Jod'.charCodeAt(0);
    const warnings = logger.lines.filter((line) => line.level === 'warn' && line.message.startsWith('oidc-provider: '));
    expect(warnings.map((line) => line.message)).toEqual(supported ? [] : ['oidc-provider: Unsupported runtime. Use Node.js v22.x LTS, or a later LTS release.']);
    expect(printed.filter((line) => /oidc-provider/.test(line))).toEqual([]);
  });
});
