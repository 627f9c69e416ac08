/**
 * /v1/api-keys (spec 4.1, CONTRACT Identity). A key belongs to an account; non-admins see and
 * change only their own account's keys (others' are 404, not 403, so ids do not leak). The full
 * `sk-bf-` key is returned only by create and rotate; the file keeps its sha256 and last 4 chars.
 *
 * A key with restrictions (models, rate limit or quota) is a credential handed out with less than
 * the account's rights: it may rotate, rename or delete itself, never create a key, change a
 * key's permissions or touch another key, or its holder could lift its own limits.
 *
 * Likewise a scoped credential (an OAuth token, or a key one created) gives the keys it creates
 * its scopes and manages only keys within them (scopes.ts), so no key does more than its creator.
 */
import { randomBytes } from 'node:crypto';
import type { KeyConfig } from '../../config/types.ts';
import { hashApiKey } from '../../config/keys.ts';
import { ADMIN_ACCOUNT_ID } from '../../config/checks.ts';
import { conflict, forbidden, invalidValue, notFound } from '../../kernel/errors.ts';
import { isAdmin } from '../../pipeline/principal.ts';
import { assertReadOnlyEchoed, assertValidUpdate, nowIso, withoutReadOnly } from '../admin/crud.ts';
import { assertObjectBody, assertValidResource } from '../admin/validate-resource.ts';
import { keyView } from '../admin/views.ts';
import type { ConfigWriter, Draft } from '../../config/write/write-back.ts';
import { isPlainObject } from '../../config/write/yaml-edit.ts';
import { json, type ApiContext, type RouteDef } from '../../http/route.ts';
import { assertKeyWithinCaller, assertScopesWithinCaller, scopesOfNewKey } from './scopes.ts';

/** A new key: `sk-bf-` + 32 random bytes (base64url, 43 chars). */
export function generateApiKey(): string {
  return `sk-bf-${randomBytes(32).toString('base64url')}`;
}

const hintOf = (key: string) => key.slice(-4);

/** What a create takes from the body as it is (`account_id` too, checked apart). */
const CLIENT_FIELDS = ['name', 'status', 'permissions', 'scopes'];
/** What a PUT may change. */
const UPDATABLE_FIELDS = ['name', 'status', 'permissions', 'scopes'];
/** What the gateway sets on a new key: refused in a create's body, so no caller picks them. */
const GATEWAY_FIELDS = ['account', 'key_hash', 'hint'];
/**
 * What a PUT may send back only as GET shows it (else 400 naming it): the gateway's fields, the
 * owner (`account_id`: a key never moves to another account) and the live counters.
 */
const READ_ONLY_FIELDS = ['id', 'object', 'key', 'account_id', 'created_at', 'usage', 'quota_used', 'quota_period', 'quota_resets_at', ...GATEWAY_FIELDS];

function visibleKeys(ctx: ApiContext): KeyConfig[] {
  const all = ctx.runtime.current().config.keys;
  if (!isAdmin(ctx.principal)) return all.filter((k) => k.account === ctx.principal.accountId);
  const account = ctx.query.get('account_id');
  return account ? all.filter((k) => k.account === account) : all;
}

function findKey(ctx: ApiContext, id: string): KeyConfig {
  const key = ctx.runtime.current().keysById.get(id);
  if (!key || (!isAdmin(ctx.principal) && key.account !== ctx.principal.accountId)) throw notFound(`No API key with id '${id}'.`);
  return key;
}

/** An expiry restricts too: a key must not outlive it by minting a key or lifting its own. */
const isRestricted = ({ permissions }: KeyConfig) =>
  permissions.models.length > 0 || permissions.rate_limit > 0 || permissions.quota_limit > 0 || permissions.expires_at !== undefined;

/** Throws 403 when the caller is a restricted key acting beyond itself (see the file's comment). */
function assertWithinCallerKey(ctx: ApiContext, target?: { id: string; permissions?: boolean }): void {
  const own = ctx.principal.kind === 'key' ? ctx.principal.key : undefined;
  if (!own || !isRestricted(own)) return;
  if (target && target.id === own.id && !target.permissions) return;
  throw forbidden(
    'This API key is restricted (models, rate limit, quota or expiry): it may rotate, rename or delete itself, but not create keys, change permissions or manage other keys. Use an unrestricted key of the account, the console or an OAuth token.',
    'key_restricted',
  );
}

/**
 * Re-checks, inside the writer's turn, that the caller's scopes still cover key `id` as the edit
 * finds it: a change that widened the key in between must not let a scoped caller rotate it.
 */
function assertStillWithinCaller(ctx: ApiContext, draft: Draft, id: string): void {
  const current = draft.snapshot.keysById.get(id);
  if (current) assertKeyWithinCaller(ctx.principal, current);
}

/** The permissions object of a create's body, over the defaults, validated as in the file. */
function permissionsOf(body: Record<string, unknown>) {
  if (body.permissions === undefined) return undefined;
  if (!isPlainObject(body.permissions)) throw invalidValue('`permissions` must be an object.', 'permissions');
  return { models: [], rate_limit: 0, quota_limit: 0, ...body.permissions };
}

export function apiKeyRoutes(writer: ConfigWriter): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/v1/api-keys',
      access: 'key',
      async handler(ctx) {
        return { object: 'list', data: await Promise.all(visibleKeys(ctx).map((k) => keyView(k, ctx.runtime))) };
      },
    },
    {
      method: 'GET',
      path: '/v1/api-keys/:id',
      access: 'key',
      handler: (ctx) => keyView(findKey(ctx, ctx.params.id!), ctx.runtime),
    },
    {
      method: 'POST',
      path: '/v1/api-keys',
      access: 'key',
      async handler(ctx) {
        assertObjectBody(ctx.body);
        assertWithinCallerKey(ctx);
        const body = withoutReadOnly(ctx.body, ['key', 'id']);
        const scopes = scopesOfNewKey(ctx.principal, body.scopes);
        let account = ctx.principal.accountId;
        if (body.account_id !== undefined) {
          if (typeof body.account_id !== 'string') throw invalidValue('`account_id` must be a string.', 'account_id');
          if (body.account_id !== account && !isAdmin(ctx.principal)) throw forbidden('Only an admin may create keys for another account.', 'admin_required');
          account = body.account_id;
        }
        delete body.account_id;
        for (const field of GATEWAY_FIELDS) {
          if (Object.hasOwn(body, field)) throw invalidValue(`\`${field}\` is set by the gateway${field === 'account' ? '; an admin creates a key for another account with `account_id`' : ''}.`, field);
        }
        const full = generateApiKey();
        const id = `key_${randomBytes(8).toString('hex')}`;
        await writer.change((draft) => {
          if (account !== ADMIN_ACCOUNT_ID && !draft.snapshot.accounts.has(account)) {
            throw invalidValue(`\`account_id\` names '${account}', which is not a known account.`, 'account_id');
          }
          const cap = draft.snapshot.config.management.max_keys_per_account;
          if (draft.snapshot.config.keys.filter((k) => k.account === account).length >= cap) {
            throw conflict(`Account '${account}' already has ${cap} API keys, the most one account may hold (management.max_keys_per_account). Delete one first.`, 'key_limit_reached');
          }
          const item: Record<string, unknown> = {
            id,
            // Only an absent name defaults to the id; a name of another type is refused below.
            name: body.name === undefined ? id : body.name,
            key_hash: hashApiKey(full),
            hint: hintOf(full),
            account,
            status: body.status === undefined ? 'active' : body.status,
            permissions: permissionsOf(body) ?? { models: [], rate_limit: 0 },
            ...(scopes === undefined ? {} : { scopes }),
            created_at: nowIso(),
          };
          // Other fields go to the validator, which names any it does not know; own properties
          // (defineProperty), so that a `__proto__` field is refused, not taken as the prototype.
          for (const field of Object.keys(body)) {
            if (CLIENT_FIELDS.includes(field)) continue;
            Object.defineProperty(item, field, { value: body[field], enumerable: true, writable: true, configurable: true });
          }
          assertValidResource('key', item);
          draft.items.append('keys', item);
        });
        return json(await keyView(findKey(ctx, id), ctx.runtime, full), 201);
      },
    },
    {
      method: 'PUT',
      path: '/v1/api-keys/:id',
      access: 'key',
      async handler(ctx) {
        assertObjectBody(ctx.body);
        const id = ctx.params.id!;
        const existing = findKey(ctx, id);
        assertWithinCallerKey(ctx, { id, permissions: Object.hasOwn(ctx.body as object, 'permissions') });
        assertKeyWithinCaller(ctx.principal, existing);
        assertReadOnlyEchoed(ctx.body, await keyView(existing, ctx.runtime), READ_ONLY_FIELDS, 'set by the gateway for an API key');
        const body = withoutReadOnly(ctx.body, READ_ONLY_FIELDS);
        if (Object.hasOwn(body, 'scopes')) assertScopesWithinCaller(ctx.principal, body.scopes);
        const fields: Record<string, unknown> = {};
        for (const [field, value] of Object.entries(body)) {
          if (!UPDATABLE_FIELDS.includes(field)) {
            throw invalidValue(`\`${field}\` cannot be changed (name, status, permissions and scopes can).`, field);
          }
          if (field === 'permissions' && value !== null && !isPlainObject(value)) throw invalidValue('`permissions` must be an object.', 'permissions');
          fields[field] = value;
        }
        // Validated merged, written as sent: the file's other permission fields keep their text;
        // `null` clears a field (`permissions.quota_period: null`: the budget never starts over).
        assertValidUpdate('key', existing, fields);
        await writer.change((draft) => {
          assertStillWithinCaller(ctx, draft, id);
          if (!draft.items.merge('keys', id, fields)) throw notFound(`No API key with id '${id}' in the configuration file.`);
        });
        return keyView(findKey(ctx, id), ctx.runtime);
      },
    },
    {
      method: 'DELETE',
      path: '/v1/api-keys/:id',
      access: 'key',
      async handler(ctx) {
        const id = ctx.params.id!;
        const existing = findKey(ctx, id);
        assertWithinCallerKey(ctx, { id });
        assertKeyWithinCaller(ctx.principal, existing);
        await writer.change((draft) => {
          assertStillWithinCaller(ctx, draft, id);
          if (!draft.items.remove('keys', id)) throw notFound(`No API key with id '${id}' in the configuration file.`);
        });
        return { id, object: 'api_key', deleted: true };
      },
    },
    {
      method: 'POST',
      path: '/v1/api-keys/:id/rotate',
      access: 'key',
      async handler(ctx) {
        const id = ctx.params.id!;
        const existing = findKey(ctx, id);
        assertWithinCallerKey(ctx, { id });
        // Only the secret changes: the key keeps its scopes.
        assertKeyWithinCaller(ctx.principal, existing);
        const full = generateApiKey();
        await writer.change((draft) => {
          assertStillWithinCaller(ctx, draft, id);
          const fields = { key_hash: hashApiKey(full), hint: hintOf(full) };
          if (!draft.items.merge('keys', id, fields)) throw notFound(`No API key with id '${id}' in the configuration file.`);
        });
        return keyView(findKey(ctx, id), ctx.runtime, full);
      },
    },
  ];
}
