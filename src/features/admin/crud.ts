/**
 * The common shape of the admin resources (CONTRACT Common): list `{object: 'list', data}`,
 * get, create 201 + object, partial PUT 200 + whole object, DELETE 200 `{id, object, deleted}`,
 * unknown id 404. Each resource supplies how to build, merge, check and show its items.
 */
import { isDeepStrictEqual } from 'node:util';
import { json, type ApiContext, type RouteDef } from '../../http/route.ts';
import { conflict, invalidValue, notFound, readOnlyField } from '../../kernel/errors.ts';
import type { Budget } from '../../quota/budgets.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { Snapshot } from '../../config/snapshot.ts';
import type { Draft, ConfigWriter } from '../../config/write/write-back.ts';
import { assertObjectBody, assertValidResource, type ResourceKind } from './validate-resource.ts';
import { mergedFields, type Collection } from '../../config/write/yaml-edit.ts';

export interface ResourceSpec<T extends { id: string }> {
  /** Path prefix, e.g. `/v1/admin/providers`. */
  path: string;
  collection: Collection;
  /** The `object` value of the resource and of delete answers. */
  object: string;
  items(snapshot: Snapshot): readonly T[];
  view(item: T, runtime: Runtime): unknown;
  /** The item to append (validated; may set secrets on the draft). Throws 400/409. */
  create(body: Record<string, unknown>, draft: Draft): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** The fields to merge into an existing item (validated). Throws 400. */
  update(existing: T, body: Record<string, unknown>, draft: Draft): Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Throws 409 while something still refers to the item; may clean up secrets. */
  beforeDelete?(existing: T, draft: Draft): void;
  /** The token budget behind `quota_used` (its current period); PUT `{"quota_used": 0}` resets it. */
  budget?(item: T, snapshot: Snapshot, now: number): Budget;
  /** Fields only the gateway sets, besides `id`, `object` and `created_at` (see assertReadOnlyEchoed). */
  readOnly?: readonly string[];
}

/** What every resource's PUT refuses to change. */
const ALWAYS_READ_ONLY = ['id', 'object', 'created_at'];

/**
 * Throws 400 `read_only_field` for a field of `readOnly` that `body` sets to something else than
 * `view` (the resource as GET answers it) shows: such a field was once ignored with a 200, so a
 * client believed it had moved a key to another account. The same value (a client saving back
 * what it read) is accepted; the caller drops it from what is written.
 */
export function assertReadOnlyEchoed(body: Record<string, unknown>, view: unknown, readOnly: readonly string[], what: string): void {
  const shown = (view ?? {}) as Record<string, unknown>;
  for (const field of readOnly) {
    if (!Object.hasOwn(body, field)) continue;
    if (!Object.hasOwn(shown, field) || !isDeepStrictEqual(body[field], shown[field])) throw readOnlyField(field, what);
  }
}

/** Fields of an answer that clients often send back; never written. */
export const READ_ONLY = ['object', 'created_at', 'quota_used', 'usage'];

export function withoutReadOnly(body: Record<string, unknown>, extra: string[] = []): Record<string, unknown> {
  const out = { ...body };
  for (const field of [...READ_ONLY, ...extra]) delete out[field];
  return out;
}

/**
 * Throws 400 unless `existing` with a partial update's `fields` is a valid item, merged as the
 * file will be: nested objects key by key, and `null` removing an optional field, which then
 * takes its default (`quota_period`, `endpoint`, `timeouts.connect`, `api_key`, `description`...).
 * A required field given `null` is a 400 naming it.
 */
export function assertValidUpdate(kind: ResourceKind, existing: { id: string }, fields: Record<string, unknown>): void {
  const item = { ...mergedFields(withoutReadOnly({ ...existing }), fields), id: existing.id };
  try {
    assertValidResource(kind, item);
  } catch (error) {
    const field = (error as { param?: unknown }).param;
    // Missing because the update removed it: a required field.
    if (typeof field === 'string' && valueAt(fields, field) === null && valueAt(item, field) === undefined) {
      throw invalidValue(`\`${field}\` is required and cannot be cleared with null.`, field);
    }
    throw error;
  }
}

/** The value at a dotted path (`timeouts.connect`, `deployments.0.provider`), or undefined. */
function valueAt(value: unknown, path: string): unknown {
  let at = value;
  for (const segment of path.split('.')) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, segment)) return undefined;
    at = (at as Record<string, unknown>)[segment];
  }
  return at;
}

export function resourceRoutes<T extends { id: string }>(spec: ResourceSpec<T>, writer: ConfigWriter): RouteDef[] {
  const find = (snapshot: Snapshot, id: string) => {
    const item = spec.items(snapshot).find((i) => i.id === id);
    if (!item) throw notFound(`No ${spec.object} with id '${id}'.`);
    return item;
  };
  const current = (ctx: ApiContext) => ctx.runtime.current();
  return [
    {
      method: 'GET',
      path: spec.path,
      access: 'admin',
      async handler(ctx) {
        const data = await Promise.all(spec.items(current(ctx)).map((item) => spec.view(item, ctx.runtime)));
        return { object: 'list', data };
      },
    },
    {
      method: 'GET',
      path: `${spec.path}/:id`,
      access: 'admin',
      handler: (ctx) => spec.view(find(current(ctx), ctx.params.id!), ctx.runtime),
    },
    {
      method: 'POST',
      path: spec.path,
      access: 'admin',
      async handler(ctx) {
        assertObjectBody(ctx.body);
        const body = ctx.body;
        const id = await writer.change(async (draft) => {
          const item = await spec.create(body, draft);
          draft.items.append(spec.collection, item);
          return item.id as string;
        });
        return json(await spec.view(find(current(ctx), id), ctx.runtime), 201);
      },
    },
    {
      method: 'PUT',
      path: `${spec.path}/:id`,
      access: 'admin',
      async handler(ctx) {
        assertObjectBody(ctx.body);
        const { quota_used: resetTo, ...body } = ctx.body as Record<string, unknown>;
        const id = ctx.params.id!;
        const readOnly = [...ALWAYS_READ_ONLY, ...(spec.readOnly ?? []), ...(spec.budget ? [] : ['quota_used'])];
        const shown = (await spec.view(find(current(ctx), id), ctx.runtime)) as Record<string, unknown>;
        assertReadOnlyEchoed(ctx.body as Record<string, unknown>, shown, readOnly, `set by the gateway for a ${spec.object}`);
        for (const field of readOnly) delete body[field];
        // `quota_used` sent back as it was read is no reset (a form saved whole).
        const reset = spec.budget && resetTo !== undefined && (resetTo === 0 || !isDeepStrictEqual(resetTo, shown.quota_used));
        if (reset && resetTo !== 0) throw invalidValue('quota_used can only be reset to 0.', 'quota_used');
        // A body that only resets the counter leaves the file alone.
        if (!reset || Object.keys(body).length > 0) {
          await writer.change(async (draft) => {
            const existing = find(draft.snapshot, id);
            const fields = await spec.update(existing, body, draft);
            if (!draft.items.merge(spec.collection, id, fields)) throw notFound(`No ${spec.object} with id '${id}' in the configuration file.`);
          });
        }
        if (reset) await ctx.runtime.store.del(spec.budget!(find(current(ctx), id), current(ctx), Date.now()).counter.key);
        return spec.view(find(current(ctx), id), ctx.runtime);
      },
    },
    {
      method: 'DELETE',
      path: `${spec.path}/:id`,
      access: 'admin',
      async handler(ctx) {
        const id = ctx.params.id!;
        find(current(ctx), id);
        await writer.change((draft) => {
          const existing = find(draft.snapshot, id);
          spec.beforeDelete?.(existing, draft);
          if (!draft.items.remove(spec.collection, id)) throw notFound(`No ${spec.object} with id '${id}' in the configuration file.`);
        });
        return { id, object: spec.object, deleted: true };
      },
    },
  ];
}

/**
 * The id of a new item: the `id` the client gave (a string: any other type is 400, never replaced
 * by a generated one; 409 when taken), else a unique slug of `slugOf`.
 */
export function newItemId(fields: Record<string, unknown>, object: string, taken: (id: string) => boolean, slugOf: string, fallback: string): string {
  if (fields.id === undefined) return uniqueSlug(slugOf, taken, fallback);
  if (typeof fields.id !== 'string') throw invalidValue('`id` must be a string.', 'id');
  if (taken(fields.id)) throw conflict(`A ${object} with id '${fields.id}' already exists.`, 'already_exists');
  return fields.id;
}

/** A slug of `name` ([a-z0-9-]) not in `taken`: `my-provider`, then `my-provider-2`... */
export function uniqueSlug(name: string, taken: (id: string) => boolean, fallback: string): string {
  const base = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100) || fallback;
  let candidate = base;
  for (let n = 2; taken(candidate); n++) candidate = `${base}-${n}`;
  return candidate;
}

export const nowIso = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
