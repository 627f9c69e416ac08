/**
 * Stored responses (background calls, or `store: true`) in the state store under
 * `gw:responses:<id>`, with their owner, so GET answers only the key that created them.
 */
import type { GatewayContext } from '../../pipeline/context.ts';
import type { Principal } from '../../pipeline/principal.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { ResponseObject } from './types.ts';

interface Stored {
  owner: string;
  response: ResponseObject;
}

const keyOf = (id: string) => `gw:responses:${id}`;

/** Who may read a stored response back: the key (or token account, or master) that made it. */
export function ownerOf(principal: Principal | undefined): string {
  if (!principal) return 'anonymous';
  if (principal.key) return `key:${principal.key.id}`;
  return `${principal.kind}:${principal.accountId}`;
}

export async function putResponse(runtime: Runtime, owner: string, response: ResponseObject): Promise<void> {
  const ttlMs = runtime.current().config.responses.ttl_seconds * 1000;
  const stored: Stored = { owner, response };
  await runtime.store.set(keyOf(response.id), JSON.stringify(stored), ttlMs);
}

export async function saveResponse(ctx: GatewayContext, response: ResponseObject): Promise<void> {
  await putResponse(ctx.runtime, ownerOf(ctx.principal), response);
}

/** The stored response if `owner` created it; null otherwise (the caller answers 404 either way). */
export async function getResponse(runtime: Runtime, id: string, owner: string): Promise<ResponseObject | null> {
  const raw = await runtime.store.get(keyOf(id));
  if (!raw) return null;
  const stored = JSON.parse(raw) as Stored;
  return stored.owner === owner ? stored.response : null;
}
