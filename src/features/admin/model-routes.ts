/** /v1/admin/models (spec 4.3): model configurations; `provider` must name a declared provider. */
import type { ModelConfig } from '../../config/types.ts';
import { conflict, invalidValue } from '../../kernel/errors.ts';
import { assertValidUpdate, nowIso, resourceRoutes, withoutReadOnly, type ResourceSpec } from './crud.ts';
import { assertValidResource } from './validate-resource.ts';
import { assertUpstreamEndpoint } from './endpoint-check.ts';
import { maskEndpoint, modelView } from './views.ts';
import type { ConfigWriter, Draft } from '../../config/write/write-back.ts';
import type { RouteDef } from '../../http/route.ts';

function assertProvider(fields: Record<string, unknown>, draft: Draft): void {
  if (fields.provider !== undefined && !draft.snapshot.providers.has(String(fields.provider))) {
    const known = [...draft.snapshot.providers.keys()].join(', ') || 'none';
    throw invalidValue(`\`provider\` names '${String(fields.provider)}', which is not a declared provider (${known}).`, 'provider');
  }
}

export const modelsSpec: ResourceSpec<ModelConfig> = {
  path: '/v1/admin/models',
  collection: 'models',
  object: 'model',
  items: (snapshot) => snapshot.config.models,
  view: modelView,
  create(body, draft) {
    const fields = withoutReadOnly(body);
    const item: Record<string, unknown> = { ...fields, created_at: nowIso() };
    assertValidResource('model', item);
    assertUpstreamEndpoint(item, draft);
    if (draft.snapshot.models.has(String(item.id))) throw conflict(`A model with id '${String(item.id)}' already exists.`, 'already_exists');
    assertProvider(item, draft);
    return item;
  },
  update(existing, body, draft) {
    const fields = withoutReadOnly(body, ['id']);
    // A form saved whole sends the masked endpoint back: it keeps the stored one.
    if (existing.endpoint && fields.endpoint === maskEndpoint(existing.endpoint)) delete fields.endpoint;
    assertValidUpdate('model', existing, fields);
    assertUpstreamEndpoint(fields, draft);
    assertProvider(fields, draft);
    return fields;
  },
};

export const modelRoutes = (writer: ConfigWriter): RouteDef[] => resourceRoutes(modelsSpec, writer);
