/**
 * /v1/admin/guardrails: the named guardrails of gateway.yaml (README "Guardrails"), written back
 * to the file like every other resource; a change applies on the config reload it causes. A
 * webhook's header values are never shown (they hold shared secrets); sent back as shown they
 * keep the values in the file. A PUT's `check` replaces the whole check (a regex check turned into
 * a word list keeps no `patterns`).
 */
import type { GuardrailConfig } from '../../config/types.ts';
import { assertValidUpdate, newItemId, nowIso, resourceRoutes, withoutReadOnly, type ResourceSpec } from './crud.ts';
import { assertValidResource } from './validate-resource.ts';
import type { ConfigWriter } from '../../config/write/write-back.ts';
import type { RouteDef } from '../../http/route.ts';

const HIDDEN = '***';

export function guardrailView(g: GuardrailConfig) {
  const check = { ...g.check } as Record<string, unknown>;
  if (check.headers) check.headers = Object.fromEntries(Object.keys(check.headers).map((name) => [name, HIDDEN]));
  return {
    id: g.id,
    object: 'guardrail',
    name: g.name,
    description: g.description ?? '',
    stage: g.stage,
    action: g.action,
    apply_to: g.apply_to,
    check,
    created_at: g.created_at ?? null,
  };
}

/** The body's `check` as fields to merge: every key of the old check cleared, hidden headers kept. */
function replacingCheck(existing: GuardrailConfig, check: unknown): unknown {
  if (typeof check !== 'object' || check === null || Array.isArray(check)) return check;
  const next = { ...(check as Record<string, unknown>) };
  const headers = next.headers as Record<string, unknown> | undefined;
  if (headers && typeof headers === 'object' && Object.values(headers).every((value) => value === HIDDEN)) delete next.headers;
  const cleared = Object.fromEntries(Object.keys(existing.check).filter((key) => !(key === 'headers' && !('headers' in next) && headers)).map((key) => [key, null]));
  return { ...cleared, ...next };
}

export const guardrailsSpec: ResourceSpec<GuardrailConfig> = {
  path: '/v1/admin/guardrails',
  collection: 'guardrails',
  object: 'guardrail',
  items: (snapshot) => snapshot.config.guardrails,
  view: guardrailView,
  create(body, draft) {
    const fields = withoutReadOnly(body);
    const taken = (id: string) => draft.snapshot.config.guardrails.some((g) => g.id === id);
    const id = newItemId(fields, 'guardrail', taken, typeof fields.name === 'string' ? fields.name : '', 'guardrail');
    const item: Record<string, unknown> = { id, ...fields, created_at: nowIso() };
    item.id = id;
    assertValidResource('guardrail', item);
    return item;
  },
  update(existing, body) {
    const fields = withoutReadOnly(body, ['id']);
    if ('check' in fields) fields.check = replacingCheck(existing, fields.check);
    assertValidUpdate('guardrail', existing, fields);
    return fields;
  },
};

export const guardrailRoutes = (writer: ConfigWriter): RouteDef[] => resourceRoutes(guardrailsSpec, writer);
