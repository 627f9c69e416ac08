/**
 * Stored responses (background calls, or `store: true`) in the state store under
 * `gw:responses:<id>`, with their owner, so GET, DELETE and cancel answer only the key that
 * created them, and
 * with the conversation through them, so a later call of that key can continue it
 * (`previous_response_id`).
 */
import { invalidValue } from '../../kernel/errors.ts';
import type { GatewayContext } from '../../pipeline/context.ts';
import type { Principal } from '../../pipeline/principal.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { ChatMessage } from '../../providers/openai-types.ts';
import { inputToMessages, instructionMessages } from './to-chat.ts';
import type { ResponseObject, ResponsesInputItem } from './types.ts';

interface Stored {
  owner: string;
  response: ResponseObject;
  /** The conversation through this response: earlier turns, this input, this output (no instructions). */
  turns?: ChatMessage[];
}

const keyOf = (id: string) => `gw:responses:${id}`;

/** Who may read a stored response back: the key (or token account, or master) that made it. */
export function ownerOf(principal: Principal | undefined): string {
  if (!principal) return 'anonymous';
  if (principal.key) return `key:${principal.key.id}`;
  return `${principal.kind}:${principal.accountId}`;
}

export async function putResponse(runtime: Runtime, owner: string, response: ResponseObject, turns?: ChatMessage[]): Promise<void> {
  const ttlMs = runtime.current().config.responses.ttl_seconds * 1000;
  const stored: Stored = { owner, response, turns };
  await runtime.store.set(keyOf(response.id), JSON.stringify(stored), ttlMs);
}

/**
 * Whether this call's response is stored: as the request's `store` says; left out, as
 * `responses.store_by_default` says (OpenAI stores by default), except for an account that keeps
 * no request bodies (`request_logging` off). A background call is always stored (its result is
 * read back).
 */
export function storesResponse(ctx: GatewayContext): boolean {
  const raw = ctx.rawBody as { store?: boolean; background?: boolean };
  if (raw.background === true) return true;
  if (raw.store !== undefined) return raw.store === true;
  return ctx.snapshot.config.responses.store_by_default && ctx.settings.security.request_logging;
}

/** Stores a finished call's response with the conversation through it. */
export async function saveResponse(ctx: GatewayContext, response: ResponseObject, owner = ownerOf(ctx.principal)): Promise<void> {
  await putResponse(ctx.runtime, owner, response, turnsThrough(ctx, response));
}

/** The stored record if `owner` created it; null otherwise (the caller answers 404 either way). */
async function getStored(runtime: Runtime, id: string, owner: string): Promise<Stored | null> {
  const raw = await runtime.store.get(keyOf(id));
  if (!raw) return null;
  const stored = JSON.parse(raw) as Stored;
  return stored.owner === owner ? stored : null;
}

export async function getResponse(runtime: Runtime, id: string, owner: string): Promise<ResponseObject | null> {
  return (await getStored(runtime, id, owner))?.response ?? null;
}

/** Forget response `id` if `owner` made it; false when there is none of theirs (404 either way). */
export async function deleteResponse(runtime: Runtime, id: string, owner: string): Promise<boolean> {
  if (!(await getStored(runtime, id, owner))) return false;
  await runtime.store.del(keyOf(id));
  return true;
}

/**
 * Cancel background response `id` of `owner`: a queued or running one is stored as `cancelled`
 * (its runner then never overwrites it, see stillWanted); a finished one is answered as it is, so
 * cancelling twice answers the same object. Null when there is none of theirs; throws 400 for a
 * response that was not made with `background: true`.
 */
export async function cancelResponse(runtime: Runtime, id: string, owner: string): Promise<ResponseObject | null> {
  const stored = await getStored(runtime, id, owner);
  if (!stored) return null;
  const { response } = stored;
  if (!response.background) throw invalidValue('Only a response created with background: true can be cancelled.', null);
  if (response.status !== 'queued' && response.status !== 'in_progress') return response;
  const cancelled: ResponseObject = { ...response, status: 'cancelled' };
  await putResponse(runtime, owner, cancelled, stored.turns);
  return cancelled;
}

/** Whether a background runner may still store its result: not deleted, not cancelled meanwhile. */
export async function stillWanted(runtime: Runtime, id: string): Promise<boolean> {
  const raw = await runtime.store.get(keyOf(id));
  return raw !== null && (JSON.parse(raw) as Stored).response.status !== 'cancelled';
}

/**
 * The conversation a call continues from: the turns stored with response `id`, with its status,
 * when `owner` made it; null otherwise.
 */
export async function getTurns(runtime: Runtime, id: string, owner: string): Promise<{ status: string; turns: ChatMessage[] } | null> {
  const stored = await getStored(runtime, id, owner);
  return stored?.turns ? { status: stored.response.status, turns: stored.turns } : null;
}

/**
 * This call's messages without its instructions (they do not carry over), then its output (its
 * items, messages and function calls, read back as input items).
 */
function turnsThrough(ctx: GatewayContext, response: ResponseObject): ChatMessage[] {
  const conversation = ctx.body.messages.slice(instructionMessages(ctx.rawBody as { instructions?: unknown }));
  return [...conversation, ...inputToMessages(response.output as ResponsesInputItem[])];
}
