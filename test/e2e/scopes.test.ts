/**
 * Every authenticated route checks its OAuth scope (src/auth/route-scopes.ts, README "Scopes"):
 * an admin account's token from the authorization-code flow that lacks a route's scope gets 403
 * `insufficient_scope` there, and the same route with a token lacking only some other scope does
 * not. Admin tokens, so the role check never answers first; the gateway refusing to start with an
 * unscoped route is what makes the table complete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_SCOPES } from '../../src/auth/route-scopes.ts';
import { PLATFORM_SCOPES } from '../../src/auth/scopes.ts';
import type { TestGateway } from '../_setup.ts';
import { accessTokenFor, bearer, ROOT, startOAuthGateway } from '../oauth-browser.ts';

const ALL_SCOPES = Object.keys(PLATFORM_SCOPES);

/** Bodies that pass validation, so that only the scope can refuse (inference validates first). */
const BODIES: Record<string, unknown> = {
  'POST /api/v1/chat/completions': { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
  'POST /api/v1/responses': { model: 'gpt-4o-mini', input: 'hi' },
  'POST /api/v1/embeddings': { model: 'gpt-4o-mini', input: 'hi' },
};

describe('OAuth scopes on every route', () => {
  let gw: TestGateway & { base: string };
  /** scope → an admin token with every platform scope but that one. */
  const lacking = new Map<string, string>();

  beforeAll(async () => {
    gw = await startOAuthGateway();
    for (const scope of ALL_SCOPES) {
      lacking.set(scope, await accessTokenFor(gw.base, ALL_SCOPES.filter((s) => s !== scope).join(' '), ROOT));
    }
  }, 60_000);
  afterAll(async () => {
    await gw?.close();
  });

  async function call(route: string, token: string) {
    const [method, path] = route.split(' ') as [string, string];
    const body = method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify(BODIES[route] ?? {});
    const response = await fetch(`${gw.base}${path.replaceAll(/:\w+/g, 'unknown-id')}`, {
      method,
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    return { status: response.status, code: (text.startsWith('{') ? JSON.parse(text)?.error?.code : undefined) as string | undefined };
  }

  it('offers no scope that guards nothing', () => {
    expect(new Set(ROUTE_SCOPES.values())).toEqual(new Set(ALL_SCOPES));
  });

  it.each([
    ['background: true', { background: true }],
    ['previous_response_id', { previous_response_id: 'resp_unknown' }],
  ])('POST /api/v1/responses with %s needs write:api before it queues or reads anything', async (_, extra) => {
    const response = await fetch(`${gw.base}/api/v1/responses`, {
      method: 'POST',
      headers: { ...bearer(lacking.get('write:api')!), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', input: 'hi', ...extra }),
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('insufficient_scope');
  });

  it.each([...ROUTE_SCOPES])('%s needs %s', async (route, scope) => {
    const refused = await call(route, lacking.get(scope)!);
    expect(refused).toEqual({ status: 403, code: 'insufficient_scope' });
    const other = ALL_SCOPES.find((s) => s !== scope)!;
    const passed = await call(route, lacking.get(other)!);
    expect(passed.code).not.toBe('insufficient_scope');
  });
});
