import { describe, expect, it } from 'vitest';
import type { Principal } from '../pipeline/principal.ts';
import { createTestContext, testConfig, testRuntime } from '../pipeline/test-context.ts';
import type { ChatRequest } from '../providers/openai-types.ts';
import route from './route.ts';
import permission from './permission.ts';

const runtime = testRuntime(
  testConfig(`
providers:
  - { id: p, type: compat, endpoint: http://p/v1, models: [raw] }
models:
  - { id: main, provider: p, fallbacks: [backup, p/raw, other] }
  - { id: backup, provider: p, fallbacks: [third] }
  - { id: third, provider: p }
  - { id: other, provider: p, fallbacks: [main] }
  - { id: aliased, provider: p, upstream_model: up, fallbacks: [backup] }
  - { id: retired, provider: p, status: inactive, fallbacks: [backup] }
groups:
  - { id: narrow, models: [main, p/*] }
`),
);

const ok = async () => new Response('ok');

/** The identifiers (as requested) of the targets the route step chose for `body`. */
async function routed(body: Partial<ChatRequest>, principal?: Principal): Promise<string[]> {
  const ctx = createTestContext(body, runtime);
  ctx.principal = principal;
  const step = (await route.setup({}, { runtime } as never)).handle!;
  await step(ctx, ok);
  return ctx.targets.map((t) => t.requestedAs);
}

const member = (groupId?: string, models: string[] = []): Principal => ({
  kind: 'key',
  accountId: 'u',
  role: 'member',
  groupId,
  key: { id: 'k', name: 'k', key_hash: 'sha256:x', account: 'u', status: 'active', permissions: { models, rate_limit: 0, quota_limit: 0 } },
});

describe('route: configured model fallbacks', () => {
  it('tries the primary model, then its configured fallbacks in order, when the request names none', async () => {
    expect(await routed({ model: 'main' })).toEqual(['main', 'backup', 'p/raw', 'other']);
  });

  it("does not follow a fallback's own fallbacks (one level), so lists naming each other do not loop", async () => {
    expect(await routed({ model: 'backup' })).toEqual(['backup', 'third']);
    expect(await routed({ model: 'other' })).toEqual(['other', 'main']);
  });

  it("lets the request's own fallbacks win, an empty list meaning none", async () => {
    expect(await routed({ model: 'main', fallbacks: ['third'] })).toEqual(['main', 'third']);
    expect(await routed({ model: 'main', fallbacks: [] })).toEqual(['main']);
  });

  it('applies the configured fallbacks of the model a provider/model name resolves to', async () => {
    expect(await routed({ model: 'p/up' })).toEqual(['p/up', 'backup']);
    expect(await routed({ model: 'p/raw' })).toEqual(['p/raw']);
  });

  it("falls over to an inactive model's configured fallbacks, as to a request's own", async () => {
    expect(await routed({ model: 'retired' })).toEqual(['backup']);
  });

  it('leaves out configured fallbacks the key or the group does not permit, without refusing the request', async () => {
    expect(await routed({ model: 'main' }, member('narrow'))).toEqual(['main', 'p/raw']);
    expect(await routed({ model: 'main' }, member(undefined, ['main', 'other']))).toEqual(['main', 'other']);
    expect(await routed({ model: 'main' }, { kind: 'master', accountId: 'admin', role: 'admin' })).toEqual(['main', 'backup', 'p/raw', 'other']);
  });

  it("still refuses a request's own fallback the caller may not use (403 naming it)", async () => {
    const ctx = createTestContext({ model: 'main', fallbacks: ['backup'] }, runtime);
    ctx.principal = member('narrow');
    const step = (await permission.setup({}, { runtime } as never)).handle!;
    // The step is synchronous: it throws rather than rejecting.
    const error = await Promise.resolve().then(() => step(ctx, ok)).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 403, code: 'model_not_permitted', param: 'fallbacks[0]' });
  });
});
