/**
 * /v1/admin/users (CONTRACT Identity): accounts, members or admins, each optionally in a group.
 * Passwords arrive in clear and are stored only as scrypt PHC strings. An email belongs to one
 * account (compared case-insensitively), and an id to one account ever (account-ids.ts): create
 * and delete are the common routes plus that, which needs the state store and the call log.
 */
import type { AccountConfig } from '../../config/types.ts';
import { hashPassword } from '../../config/password.ts';
import { conflict, invalidValue, notFound } from '../../kernel/errors.ts';
import { assertValidUpdate, newItemId, nowIso, resourceRoutes, withoutReadOnly, type ResourceSpec } from './crud.ts';
import { assertValidResource } from './validate-resource.ts';
import { userView } from './views.ts';
import type { ConfigWriter, Draft } from '../../config/write/write-back.ts';
import { json, type ApiContext, type RouteDef } from '../../http/route.ts';
import { assertObjectBody } from './validate-resource.ts';
import { newAccountId, retireAccountId } from './account-ids.ts';

const MIN_PASSWORD = 8;
const PATH = '/v1/admin/users';

/** 409 `already_exists` when an account other than `self` has `email`, in any case. */
function assertEmailFree(draft: Draft, email: string, self?: string): void {
  const wanted = email.toLowerCase();
  if (draft.snapshot.config.accounts.some((a) => a.id !== self && a.email.toLowerCase() === wanted)) {
    throw conflict(`A user with email '${email}' already exists.`, 'already_exists');
  }
}

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
  path: PATH,
  collection: 'accounts',
  // Only ever set from `password`.
  readOnly: ['password_hash'],
  object: 'user',
  items: (snapshot) => snapshot.config.accounts,
  view: userView,
  async create(body, draft) {
    const fields = withoutReadOnly(body);
    if (fields.password === undefined) throw invalidValue('`password` is required.', 'password');
    const taken = (id: string) => draft.snapshot.accounts.has(id) || id === 'admin';
    const email = typeof fields.email === 'string' ? fields.email : '';
    const id = newItemId(fields, 'user', taken, typeof fields.name === 'string' && fields.name ? fields.name : email.split('@')[0]!, 'user');
    assertEmailFree(draft, email);
    const item = { id, ...(await prepare(fields, draft)), created_at: nowIso() };
    item.id = id;
    assertValidResource('account', item);
    return item;
  },
  async update(existing, body, draft) {
    const fields = await prepare(withoutReadOnly(body, ['id']), draft);
    if (typeof fields.email === 'string') assertEmailFree(draft, fields.email, existing.id);
    assertValidUpdate('account', existing, fields);
    return fields;
  },
  beforeDelete(existing, draft) {
    const keys = draft.snapshot.config.keys.filter((k) => k.account === existing.id).map((k) => k.id);
    if (keys.length) throw conflict(`User '${existing.id}' still owns API keys: ${keys.join(', ')}. Delete them first.`, 'user_in_use');
  },
};

/** The name a generated id is a slug of: `name`, else the email's local part. */
const slugSource = (body: Record<string, unknown>) =>
  typeof body.name === 'string' && body.name ? body.name : typeof body.email === 'string' ? body.email.split('@')[0]! : '';

/** POST: the id is chosen inside the change, so no other write comes between the check and the append. */
function createUser(writer: ConfigWriter) {
  return async function createUser(ctx: ApiContext) {
    assertObjectBody(ctx.body);
    const body = ctx.body as Record<string, unknown>;
    const id = await writer.change(async (draft) => {
      const current = (candidate: string) => draft.snapshot.accounts.has(candidate) || candidate === 'admin';
      let chosen = body.id;
      // An id that is not a string (400) or that an account has now (409) is left to create to refuse.
      if (chosen === undefined || (typeof chosen === 'string' && !current(chosen))) chosen = await newAccountId(ctx.runtime, chosen, slugSource(body), current);
      const item = await usersSpec.create({ ...body, id: chosen }, draft);
      draft.items.append('accounts', item);
      return item.id as string;
    });
    return json(userView(ctx.runtime.current().accounts.get(id)!), 201);
  };
}

/** DELETE: the id is retired before the account leaves the file, so it is never free meanwhile. */
function deleteUser(writer: ConfigWriter) {
  return async function deleteUser(ctx: ApiContext) {
    const id = ctx.params.id!;
    const missing = () => notFound(`No user with id '${id}'.`);
    if (!ctx.runtime.current().config.accounts.some((a) => a.id === id)) throw missing();
    await writer.change(async (draft) => {
      const existing = draft.snapshot.config.accounts.find((a) => a.id === id);
      if (!existing) throw missing();
      usersSpec.beforeDelete!(existing, draft);
      await retireAccountId(ctx.runtime.store, id);
      if (!draft.items.remove('accounts', id)) throw notFound(`No user with id '${id}' in the configuration file.`);
    });
    return { id, object: 'user', deleted: true };
  };
}

/** The common routes of usersSpec, with its own create and delete. */
export function userRoutes(writer: ConfigWriter): RouteDef[] {
  const own: Partial<Record<RouteDef['method'], RouteDef['handler']>> = { POST: createUser(writer), DELETE: deleteUser(writer) };
  return resourceRoutes(usersSpec, writer).map((route) => ({ ...route, handler: own[route.method] ?? route.handler }));
}
