/**
 * /v1/admin/models (spec 4.3): model configurations; `provider` must name a declared provider and
 * each of `fallbacks` another model (as gateway.yaml's checks require, src/config/fallback-refs.ts).
 */
import { fallbackProblem } from '../../config/fallback-refs.ts';
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

/** 400 naming `fallbacks.<i>` for the first fallback that names no other model. */
function assertFallbacks(model: Pick<ModelConfig, 'id' | 'provider' | 'upstream_model'>, fallbacks: unknown, draft: Draft): void {
  if (!Array.isArray(fallbacks)) return;
  // The models as the file will list them (order matters: `provider/model` names the first match).
  const current = draft.snapshot.config.models;
  const models = current.some((m) => m.id === model.id) ? current.map((m) => (m.id === model.id ? model : m)) : [...current, model];
  fallbacks.forEach((fallback: string, i) => {
    const problem = fallbackProblem(model, fallback, models, draft.snapshot.config.providers);
    if (problem) throw invalidValue(`\`fallbacks.${i}\` ${problem}.`, `fallbacks.${i}`);
  });
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
    assertFallbacks(item as unknown as ModelConfig, item.fallbacks, draft);
    return item;
  },
  update(existing, body, draft) {
    const fields = withoutReadOnly(body, ['id']);
    // A form saved whole sends the masked endpoint back: it keeps the stored one.
    if (existing.endpoint && fields.endpoint === maskEndpoint(existing.endpoint)) delete fields.endpoint;
    assertValidUpdate('model', existing, fields);
    assertUpstreamEndpoint(fields, draft);
    assertProvider(fields, draft);
    assertFallbacks({ ...existing, ...fields } as ModelConfig, fields.fallbacks, draft);
    return fields;
  },
  beforeDelete(existing, draft) {
    const users = draft.snapshot.config.models.filter((m) => m.fallbacks?.includes(existing.id)).map((m) => m.id);
    if (users.length) {
      throw conflict(`Model '${existing.id}' is a fallback of models: ${users.join(', ')}. Remove it from their fallbacks first.`, 'model_in_use');
    }
  },
};

export const modelRoutes = (writer: ConfigWriter): RouteDef[] => resourceRoutes(modelsSpec, writer);
