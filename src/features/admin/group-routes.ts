/** /v1/admin/groups (spec 4.4): account groups with model lists, token quotas and priority. */
import { groupBudget } from '../../quota/budgets.ts';
import type { GroupConfig } from '../../config/types.ts';
import { conflict } from '../../kernel/errors.ts';
import { assertValidUpdate, newItemId, nowIso, resourceRoutes, withoutReadOnly, type ResourceSpec } from './crud.ts';
import { assertValidResource } from './validate-resource.ts';
import { groupView } from './views.ts';
import type { ConfigWriter } from '../../config/write/write-back.ts';
import type { RouteDef } from '../../http/route.ts';

export const groupsSpec: ResourceSpec<GroupConfig> = {
  path: '/v1/admin/groups',
  collection: 'groups',
  budget: groupBudget,
  readOnly: ['quota_resets_at'],
  object: 'group',
  items: (snapshot) => snapshot.config.groups,
  view: groupView,
  create(body, draft) {
    const fields = withoutReadOnly(body);
    const taken = (id: string) => draft.snapshot.groups.has(id);
    const id = newItemId(fields, 'group', taken, typeof fields.name === 'string' ? fields.name : '', 'group');
    const item: Record<string, unknown> = { id, ...fields, created_at: nowIso() };
    item.id = id;
    assertValidResource('group', item);
    return item;
  },
  update(existing, body) {
    const fields = withoutReadOnly(body, ['id']);
    assertValidUpdate('group', existing, fields);
    return fields;
  },
  beforeDelete(existing, draft) {
    const members = draft.snapshot.config.accounts.filter((a) => a.group === existing.id).map((a) => a.id);
    if (members.length) throw conflict(`Group '${existing.id}' still has members: ${members.join(', ')}. Move them first.`, 'group_in_use');
  },
};

export const groupRoutes = (writer: ConfigWriter): RouteDef[] => resourceRoutes(groupsSpec, writer);
