/**
 * /v1/admin/users (CONTRACT Identity): accounts, members or admins, each optionally in a group.
 * Passwords arrive in clear and are stored only as scrypt PHC strings.
 */
import type { AccountConfig } from '../../config/types.ts';
import { hashPassword } from '../../config/password.ts';
import { conflict, invalidValue } from '../../kernel/errors.ts';
import { newItemId, nowIso, resourceRoutes, withoutReadOnly, type ResourceSpec } from './crud.ts';
import { assertValidResource } from './validate-resource.ts';
import { userView } from './views.ts';
import type { ConfigWriter, Draft } from '../../config/write/write-back.ts';
import type { RouteDef } from '../../http/route.ts';

const MIN_PASSWORD = 8;

/** Replaces `password` by `password_hash`; checks the group exists. */
async function prepare(fields: Record<string, unknown>, draft: Draft): Promise<Record<string, unknown>> {
  const out = { ...fields };
  delete out.password_hash; // only ever set from `password`
  if (out.password !== undefined) {
    if (typeof out.password !== 'string' || out.password.length < MIN_PASSWORD) {
      throw invalidValue(`\`password\` must be a string of at least ${MIN_PASSWORD} characters.`, 'password');
    }
    out.password_hash = await hashPassword(out.password);
    delete out.password;
  }
  if (out.group !== undefined && out.group !== null) {
    if (typeof out.group !== 'string') throw invalidValue('`group` must be a group id (a string) or null.', 'group');
    if (!draft.snapshot.groups.has(out.group)) throw invalidValue(`\`group\` names '${out.group}', which is not a declared group.`, 'group');
  }
  if (out.group === null) out.group = undefined; // removes the key on update
  return out;
}

export const usersSpec: ResourceSpec<AccountConfig> = {
  path: '/v1/admin/users',
  collection: 'accounts',
  object: 'user',
  items: (snapshot) => snapshot.config.accounts,
  view: userView,
  async create(body, draft) {
    const fields = withoutReadOnly(body);
    if (fields.password === undefined) throw invalidValue('`password` is required.', 'password');
    const taken = (id: string) => draft.snapshot.accounts.has(id) || id === 'admin';
    const email = typeof fields.email === 'string' ? fields.email : '';
    const id = newItemId(fields, 'user', taken, typeof fields.name === 'string' && fields.name ? fields.name : email.split('@')[0]!, 'user');
    if (draft.snapshot.config.accounts.some((a) => a.email.toLowerCase() === email.toLowerCase())) {
      throw conflict(`A user with email '${email}' already exists.`, 'already_exists');
    }
    const item = { id, ...(await prepare(fields, draft)), created_at: nowIso() };
    item.id = id;
    assertValidResource('account', item);
    return item;
  },
  async update(existing, body, draft) {
    const fields = await prepare(withoutReadOnly(body, ['id']), draft);
    assertValidResource('account', { ...withoutReadOnly({ ...existing }), ...fields, id: existing.id });
    return fields;
  },
  beforeDelete(existing, draft) {
    const keys = draft.snapshot.config.keys.filter((k) => k.account === existing.id).map((k) => k.id);
    if (keys.length) throw conflict(`User '${existing.id}' still owns API keys: ${keys.join(', ')}. Delete them first.`, 'user_in_use');
  },
};

export const userRoutes = (writer: ConfigWriter): RouteDef[] => resourceRoutes(usersSpec, writer);
