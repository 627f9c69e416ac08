/**
 * Stored responses (background calls, or `store: true`) in the state store under
 * `gw:responses:<id>`, with their owner, so GET answers only the key that created them, and
 * with the conversation through them, so a later call of that key can continue it
 * (`previous_response_id`).
 */
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
