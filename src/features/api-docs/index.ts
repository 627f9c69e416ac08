/**
 * The API's own description: GET /v1/openapi.json (OpenAPI 3.1, document.ts) and GET /v1/docs (a
 * page listing its operations, page.ts). Both public: they describe routes and schemas, no secret
 * and nothing of the configuration in force. Installed last, it documents the features installed
 * before it and itself.
 */
import type { FeatureContext, Installed } from '../../http/feature.ts';
import { defineRoutes } from '../../http/route.ts';
import { routeTable } from '../../http/route-table.ts';
import { buildOpenApi } from './document.ts';
import { docsPage } from './page.ts';

/** `installed`: the features of this gateway, this one included once installed (read at the first request). */
export function installApiDocs({ runtime }: FeatureContext, installed: readonly Installed[]): Installed {
  let document: string | undefined;
  // Built once: the route table is fixed at start, and a reload changes no route.
  const openApi = () => (document ??= JSON.stringify(buildOpenApi(routeTable(installed), runtime.version, runtime.baseUrl)));
  return {
    routes: defineRoutes([
      { method: 'GET', path: '/v1/openapi.json', access: 'public', handler: () => new Response(openApi(), { headers: { 'content-type': 'application/json' } }) },
      { method: 'GET', path: '/v1/docs', access: 'public', handler: () => docsPage() },
    ]),
  };
}

