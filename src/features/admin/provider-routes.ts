/**
 * /v1/admin/providers (spec 4.2). The upstream api_key given here is stored in the secrets file
 * beside gateway.yaml; the YAML holds `${secret:provider_<id>_api_key}` and reads mask it.
 */
import { providerBudget } from '../../quota/budgets.ts';
import type { ProviderConfig } from '../../config/types.ts';
import { conflict } from '../../kernel/errors.ts';
import { assertValidUpdate, newItemId, nowIso, resourceRoutes, withoutReadOnly, type ResourceSpec } from './crud.ts';
import { assertValidResource } from './validate-resource.ts';
import { assertUpstreamEndpoint } from './endpoint-check.ts';
import { maskEndpoint, maskSecret, providerView } from './views.ts';
import type { ConfigWriter, Draft } from '../../config/write/write-back.ts';
import { ConfigReference, isPlainObject } from '../../config/write/yaml-edit.ts';
import type { RouteDef } from '../../http/route.ts';

const secretName = (id: string) => `provider_${id}_api_key`;

/**
 * Moves a clear api_key into the secrets file and leaves the reference in its place. A key that
 * looks like `${VAR}` is stored as those characters too: the API never reads the environment.
 */
function storeSecret(item: Record<string, unknown>, id: string, draft: Draft): void {
  if (typeof item.api_key !== 'string') return;
  draft.secrets[secretName(id)] = item.api_key;
  item.api_key = new ConfigReference(`\${secret:${secretName(id)}}`);
}

export const providersSpec: ResourceSpec<ProviderConfig> = {
  path: '/v1/admin/providers',
  collection: 'providers',
  budget: providerBudget,
  readOnly: ['quota_resets_at'],
  object: 'provider',
  items: (snapshot) => snapshot.config.providers,
  view: providerView,
  create(body, draft) {
    const fields = withoutReadOnly(body);
    const taken = (id: string) => draft.snapshot.providers.has(id);
    const id = newItemId(fields, 'provider', taken, typeof fields.name === 'string' ? fields.name : '', 'provider');
    const item: Record<string, unknown> = { id, ...fields, created_at: nowIso() };
    item.id = id;
    assertValidResource('provider', item);
    assertUpstreamEndpoint(item, draft);
    storeSecret(item, id, draft);
    return item;
  },
  update(existing, body, draft) {
    const fields = withoutReadOnly(body, ['id']);
    keepEchoedSecrets(fields, existing);
    assertValidUpdate('provider', existing, fields);
    assertUpstreamEndpoint(fields, draft);
    // `null` removes the key from the YAML; the secret it referred to goes with it.
    if (fields.api_key === null) delete draft.secrets[secretName(existing.id)];
    storeSecret(fields, existing.id, draft);
    return fields;
  },
  beforeDelete(existing, draft) {
    const users = draft.snapshot.config.models
      .filter((m) => m.provider === existing.id || m.deployments?.some((d) => d.provider === existing.id))
      .map((m) => m.id);
    if (users.length) {
      throw conflict(`Provider '${existing.id}' is still used by models: ${users.join(', ')}. Delete or move them first.`, 'provider_in_use');
    }
    delete draft.secrets[secretName(existing.id)];
  },
};

export const providerRoutes = (writer: ConfigWriter): RouteDef[] => resourceRoutes(providersSpec, writer);

/**
 * A client that sends back what it read (the console saving a whole form) sends the masked
 * `api_key` and header values: those keep the stored secret instead of replacing it with its mask.
 */
function keepEchoedSecrets(fields: Record<string, unknown>, existing: ProviderConfig): void {
  if (typeof fields.api_key === 'string' && fields.api_key === maskSecret(existing.api_key)) delete fields.api_key;
  if (typeof fields.endpoint === 'string' && fields.endpoint === maskEndpoint(existing.endpoint)) delete fields.endpoint;
  const headers = fields.headers;
  if (!isPlainObject(headers) || !existing.headers) return;
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' && Object.hasOwn(existing.headers, name) && value === maskSecret(existing.headers[name])) delete headers[name];
  }
}
