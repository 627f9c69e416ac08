/**
 * `GET /api/v1/models` (OpenAI's models list, which SDK users call before anything else): the
 * identifiers this caller may route to, i.e. active model configs and `provider/model` names of
 * active providers, filtered by the key's and the group's model allow-lists. `GET
 * /api/v1/models/{id}` (`client.models.retrieve`) answers one of them, or 404 `model_not_found`
 * for any id not in the caller's list, existing or not. With `anthropic-version`, both answer in
 * the Messages API's format (anthropic-list.ts).
 */
import { modelPermitted } from '../../auth/model-permission.ts';
import type { Snapshot } from '../../config/snapshot.ts';
import { defineRoutes } from '../../http/route.ts';
import { modelNotFound } from '../../kernel/errors.ts';
import { anthropicErrorResponse } from '../messages/errors.ts';
import { createRequestId } from '../../kernel/request-id.ts';
import { anthropicModel, anthropicPage, wantsAnthropicShape } from './anthropic-list.ts';

interface ModelEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

const unix = (iso?: string) => (iso ? Math.floor(Date.parse(iso) / 1000) || 0 : 0);

export function routableModels(snapshot: Snapshot): ModelEntry[] {
  const entries = new Map<string, ModelEntry>();
  for (const model of snapshot.models.values()) {
    const provider = snapshot.providers.get(model.provider);
    if (model.status !== 'active' || provider?.status !== 'active') continue;
    entries.set(model.id, { id: model.id, object: 'model', created: unix(model.created_at), owned_by: provider.id });
  }
  for (const provider of snapshot.providers.values()) {
    if (provider.status !== 'active') continue;
    for (const name of provider.models) {
      const id = `${provider.id}/${name}`;
      if (!entries.has(id)) entries.set(id, { id, object: 'model', created: unix(provider.created_at), owned_by: provider.id });
    }
  }
  return [...entries.values()];
}

/** The list entry for `id` (routableModels' rules, without building the list), or undefined. */
export function routableModel(snapshot: Snapshot, id: string): ModelEntry | undefined {
  const model = snapshot.models.get(id);
  const owner = model && snapshot.providers.get(model.provider);
  if (model?.status === 'active' && owner?.status === 'active') return { id, object: 'model', created: unix(model.created_at), owned_by: owner.id };
  const slash = id.indexOf('/');
  const provider = slash > 0 ? snapshot.providers.get(id.slice(0, slash)) : undefined;
  if (provider?.status !== 'active' || !provider.models.includes(id.slice(slash + 1))) return undefined;
  return { id, object: 'model', created: unix(provider.created_at), owned_by: provider.id };
}

export const modelListRoutes = defineRoutes([
  {
    method: 'GET',
    path: '/api/v1/models',
    access: 'key',
    handler({ runtime, principal, request, query }) {
      const snapshot = runtime.current();
      const data = routableModels(snapshot).filter((m) => modelPermitted(principal, snapshot, m.id));
      // Anthropic's SDK and coding agents discover models in their own list format.
      if (wantsAnthropicShape(request)) return anthropicPage(snapshot, data, query);
      return { object: 'list', data };
    },
  },
  {
    method: 'GET',
    path: '/api/v1/models/:id',
    access: 'key',
    handler({ runtime, principal, params, request }) {
      const snapshot = runtime.current();
      const entry = routableModel(snapshot, params.id);
      const anthropic = wantsAnthropicShape(request);
      if (!entry || !modelPermitted(principal, snapshot, entry.id)) {
        if (anthropic) return anthropicErrorResponse(modelNotFound(params.id), createRequestId(), {});
        throw modelNotFound(params.id);
      }
      return anthropic ? anthropicModel(snapshot, entry) : entry;
    },
  },
]);
