/**
 * `npm run docs:openapi`: writes docs/openapi.json, the document GET /v1/openapi.json serves, for
 * readers without a running gateway. The route table comes from the features installed for the
 * sample gateway.yaml (routes do not depend on the config); document.test.ts fails when the
 * committed file is stale.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGateway } from '../src/boot/gateway.ts';
import { routeTable } from '../src/http/route-table.ts';
import { createLogger } from '../src/kernel/logger.ts';
import { committedOpenApi } from '../src/features/api-docs/document.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const data = await mkdtemp(join(tmpdir(), 'gw-docs-'));
const gateway = await createGateway({ configFile: join(root, 'gateway.yaml'), env: { GATEWAY_DATA_DIR: data }, logger: createLogger('silent'), watch: false });
try {
  const target = join(root, 'docs/openapi.json');
  await writeFile(target, committedOpenApi(routeTable(gateway.features), gateway.runtime.version));
  console.log(`wrote ${target}`);
} finally {
  await gateway.close();
  await rm(data, { recursive: true, force: true });
}
