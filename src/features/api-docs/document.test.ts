import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type RunningGateway } from '../../boot/gateway.ts';
import { routeKey, routeTable, type RouteEntry } from '../../http/route-table.ts';
import { createLogger } from '../../kernel/logger.ts';
import { createServerApp } from '../../server.ts';
import { parsePath } from '../generate-content/request.ts';
import { endpointMethods, ENDPOINTS } from '../oauth/endpoint-methods.ts';
import { buildOpenApi, committedOpenApi, coverage, documentedOperations } from './document.ts';
import { OPERATIONS } from './operations.ts';

let dir: string;
let gateway: RunningGateway;
let table: RouteEntry[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gw-openapi-'));
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, await readFile(new URL('../../../test/fixtures/management.yaml', import.meta.url), 'utf8'));
  gateway = await createGateway({ configFile: file, env: { MOCK_URL: 'http://127.0.0.1:9/v1', GATEWAY_DATA_DIR: join(dir, 'data') }, logger: createLogger('silent'), watch: false });
  table = routeTable(gateway.features);
});
afterAll(async () => {
  await gateway?.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * A well-kept validator of OpenAPI documents (@seriousme/openapi-schema-validator: the OpenAPI
 * Initiative's published JSON Schemas, the document's `openapi` picking the version); the errors of
 * a refused document as text.
 */
async function validateOpenApi(document: unknown): Promise<{ valid: boolean; errors: string }> {
  const result = await new Validator().validate(document as Parameters<Validator["validate"]>[0]);
  return { valid: result.valid, errors: JSON.stringify(result.errors ?? null, null, 1)?.slice(0, 2000) ?? '' };
}

/** A concrete path for an OpenAPI one (`{uid}` → `x1`). */
const sample = (path: string) => path.replace(/\{[^}]+\}/g, 'x1');

describe('the route table', () => {
  it('holds the inference endpoints, management routes and what mounts register', () => {
    const keys = table.map(routeKey);
    expect(keys).toContain('POST /api/v1/messages/count_tokens');
    expect(keys).toContain('POST /api/v1beta/models/**');
    expect(keys).toContain('GET /v1/admin/models/:id');
    expect(keys).toContain('ALL /oauth/**');
    expect(keys).toContain('GET /console/config.json');
    expect(keys).toContain('GET /v1/openapi.json');
    expect(keys).not.toContain('HEAD /console');
  });
});

describe('the OpenAPI document', () => {
  it('documents every served route, and no route that is not served', () => {
    const { undocumented, stale } = coverage(table);
    expect(undocumented, 'served routes without an entry in src/features/api-docs/operations.ts').toEqual([]);
    expect(stale, 'entries of src/features/api-docs/operations.ts that no feature serves').toEqual([]);
  });

  it('fails the comparison when a route is added without an entry, or an entry outlives its route', () => {
    const added = [...table, { method: 'GET', path: '/v1/new-thing', access: 'key' } as const];
    expect(coverage(added).undocumented).toEqual(['GET /v1/new-thing']);
    const removed = table.filter((route) => routeKey(route) !== 'GET /v1/system/status');
    expect(coverage(removed).stale).toEqual(['GET /v1/system/status']);
  });

  it('lists exactly the endpoints the OAuth mount answers, with their methods', () => {
    const oauth = documentedOperations(table).filter((op) => op.route.access === 'mount' && (op.path.startsWith('/oauth') || op.path.startsWith('/.well-known')));
    for (const op of oauth) expect(endpointMethods(sample(op.path)), `${op.method} ${op.path}`).toContain(op.method);
    const documented = new Set(oauth.map((op) => `${op.method} ${sample(op.path)}`));
    const served = ENDPOINTS.flatMap(([path, methods]) => methods.filter((m) => m !== 'HEAD' && m !== 'OPTIONS').map((m) => `${m} ${path.replace(/:[^/]+/g, 'x1')}`));
    expect(served.filter((key) => !documented.has(key))).toEqual([]);
  });

  it('documents the generateContent methods the catch-all parses', () => {
    const ops = documentedOperations(table).filter((op) => op.path.startsWith('/api/v1beta/'));
    expect(ops.map((op) => parsePath(sample(op.path)).method).sort()).toEqual(['countTokens', 'generateContent', 'streamGenerateContent']);
  });

  it('is a valid OpenAPI 3.1 document (checked by the OpenAPI schema validator)', async () => {
    const document = buildOpenApi(table, '1.2.3', 'https://gw.example.com') as { openapi: string };
    expect(document.openapi).toMatch(/^3\.1\./);
    const { valid, errors } = await validateOpenApi(document);
    expect(valid, errors).toBe(true);
  });

  it('rejects a broken document with that same validator (the check can fail)', async () => {
    const document = buildOpenApi(table, '1.2.3', 'https://gw.example.com') as { paths: Record<string, Record<string, { responses?: unknown }>> };
    delete document.paths['/v1/system/health']!.get!.responses;
    (document.paths['/v1/system/status']!.get as Record<string, unknown>).summry = 'typo';
    expect((await validateOpenApi(document)).valid).toBe(false);
    expect((await validateOpenApi({ openapi: '3.1.0', info: { title: 't' }, paths: {} })).valid).toBe(false);
  });

  it('resolves every $ref it holds, and names each operation once', () => {
    const document = buildOpenApi(table, '1.2.3', 'https://gw.example.com') as { components: { schemas: Record<string, unknown> }; paths: Record<string, Record<string, { operationId: string }>> };
    const pointers = [...JSON.stringify(document).matchAll(/"\$ref":"#([^"]*)"/g)].map(([, pointer]) => pointer!);
    const resolves = (pointer: string) =>
      pointer.split('/').slice(1).reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')], document) !== undefined;
    expect(pointers.length).toBeGreaterThan(50);
    expect(pointers.filter((pointer) => !resolves(pointer))).toEqual([]);
    const ids = Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every authenticated route its OAuth scope, and public routes no credential', () => {
    const document = buildOpenApi(table, '1.2.3', 'https://gw.example.com') as { paths: Record<string, Record<string, { security: Array<Record<string, string[]>> }>> };
    expect(document.paths['/v1/api-keys']!.post!.security).toEqual([{ bearer: [] }, { oauth2: ['write:api'] }]);
    expect(document.paths['/v1/statistics/cost']!.get!.security).toEqual([{ bearer: [] }, { oauth2: ['read:billing'] }]);
    expect(document.paths['/api/v1/messages']!.post!.security).toEqual([{ bearer: [] }, { oauth2: ['write:api'] }]);
    expect(document.paths['/api/v1beta/models/{model}:generateContent']!.post!.security).toEqual([{ bearer: [] }, { oauth2: ['write:api'] }]);
    expect(document.paths['/v1/system/health']!.get!.security).toEqual([]);
    expect(Object.keys(OPERATIONS).length).toBeGreaterThan(60);
  });
});

describe('docs/openapi.json', () => {
  it('is what `npm run docs:openapi` writes now', async () => {
    const committed = await readFile(new URL('../../../docs/openapi.json', import.meta.url), 'utf8');
    const fresh = committed === committedOpenApi(table, gateway.runtime.version);
    expect(fresh, 'docs/openapi.json is stale: run `npm run docs:openapi` and commit it').toBe(true);
  });
});

describe('GET /v1/openapi.json and /v1/docs', () => {
  it('serve the document and the page without a credential', async () => {
    const app = createServerApp(gateway, createLogger('silent'));
    const doc = await app.fetch(new Request('http://gw.test/v1/openapi.json'));
    expect(doc.status).toBe(200);
    expect(doc.headers.get('content-type')).toBe('application/json');
    const body = (await doc.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(body.openapi).toBe('3.1.0');
    expect(Object.keys(body.paths)).toContain('/api/v1/chat/completions');

    const page = await app.fetch(new Request('http://gw.test/v1/docs'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/default-src 'none'; connect-src 'self'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+'/);
    const html = await page.text();
    // Self-contained: no script, style or font from anywhere else.
    expect(html).not.toMatch(/\b(src|href)=["']?(https?:)?\/\//);
    expect(html).toContain("fetch('openapi.json')");
  });
});
