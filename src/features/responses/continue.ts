/**
 * `previous_response_id`: a call continues a stored response of the same caller. The turns kept
 * with that response (its input and output, and the turns before it; never its instructions)
 * come before this call's input, after this call's own instructions.
 */
import { GatewayError, invalidValue } from '../../kernel/errors.ts';
import type { Runtime } from '../../pipeline/runtime.ts';
import type { ChatRequest } from '../../providers/openai-types.ts';
import { getTurns } from './store.ts';
import { instructionMessages } from './to-chat.ts';

/** `body` with the stored conversation of `previousId` put before its input. Throws 404 / 400. */
export async function withPreviousTurns(runtime: Runtime, body: ChatRequest, previousId: string, owner: string, raw: { instructions?: unknown }): Promise<ChatRequest> {
  const previous = await getTurns(runtime, previousId, owner);
  if (!previous) {
    throw new GatewayError(
      404,
      'not_found_error',
      `No stored response '${previousId}' for this caller. A response can be continued by the key that made it, when it was stored (store not false, or background: true), for responses.ttl_seconds.`,
      { code: 'previous_response_not_found', param: 'previous_response_id' },
    );
  }
  if (previous.status !== 'completed') {
    throw invalidValue(`Response '${previousId}' is ${previous.status}: only a completed response can be continued.`, 'previous_response_id');
  }
  const at = instructionMessages(raw);
  return { ...body, messages: [...body.messages.slice(0, at), ...previous.turns, ...body.messages.slice(at)] };
}
