/**
 * Every top-level field of a responses body, and whether the gateway serves it. The body schema
 * lets unknown fields through, but OpenAI answers 400 for a parameter it does not know, and a
 * field the chat translation cannot honour is refused by name rather than dropped: the answer
 * would be to a different request. Served fields are read in to-chat.ts, except
 * `previous_response_id` (continue.ts), `background` and `store` (routes.ts, renderer.ts).
 */
import { unsupportedParameter } from '../../kernel/errors.ts';
import { never, only, type FieldRule } from '../../providers/chat-fields.ts';

const served = (names: string[]): Array<[string, FieldRule]> => names.map((name) => [name, true]);

const isNone = (value: unknown) => value === undefined || value === null;

const FIELDS: ReadonlyMap<string, FieldRule> = new Map([
  ...served(['model', 'input', 'instructions', 'previous_response_id', 'fallbacks', 'stream', 'background', 'store']),
  ...served(['temperature', 'top_p', 'frequency_penalty', 'presence_penalty', 'max_tokens', 'max_output_tokens', 'stop']),
  ...served(['metadata', 'parallel_tool_calls', 'tool_choice', 'tools', 'text', 'user']),
  // Passed on as the chat fields of the same name (hints that do not change the answer).
  ...served(['prompt_cache_key', 'prompt_cache_retention', 'safety_identifier', 'service_tier']),
  // Only `include_obfuscation`: padding on OpenAI's stream events, which the gateway writes itself.
  ['stream_options', true],
  // `effort` becomes the chat `reasoning_effort`; reasoning summaries are never returned here.
  [
    'reasoning',
    only(
      (v) => isNone((v as { summary?: unknown }).summary) && isNone((v as { generate_summary?: unknown }).generate_summary),
      "Reasoning summaries are not supported: send 'reasoning' with 'effort' only.",
    ),
  ],
  [
    'include',
    // Encrypted reasoning is asked for by clients that keep no state (store: false); no reasoning
    // items are returned here, so there is nothing to include and the answer is the same.
    only(
      (v) => Array.isArray(v) && v.every((item) => item === 'reasoning.encrypted_content'),
      "'include' takes only 'reasoning.encrypted_content' here: no other extra output data (log probabilities, tool results, image URLs) is returned.",
    ),
  ],
  [
    'truncation',
    only((v) => v === 'disabled', "truncation 'auto' is not supported: input is never dropped to fit the context window; send input that fits, with truncation 'disabled'."),
  ],
  ['max_tool_calls', never("'max_tool_calls' is not supported: the number of tool calls in a response cannot be capped here.")],
  ['top_logprobs', only((v) => v === 0, "'top_logprobs' is not supported: log probabilities are not returned.")],
  // Context held by OpenAI (a conversation object, a prompt template): answering without it
  // would answer a different question.
  ['conversation', never("'conversation' is not supported. Stored conversations are not kept here: send the conversation so far in 'input'.")],
  [
    'prompt',
    never("'prompt' is not supported. Prompt templates are held by OpenAI, not here: send the instructions in 'instructions' and the text in 'input'."),
  ],
]);

/** Throws 400 `unsupported_parameter` naming the first field that is unknown or cannot be honoured. */
export function refuseUnservedFields(body: Record<string, unknown>): void {
  for (const key in body) {
    const value = body[key];
    if (value === undefined || value === null) continue;
    const rule = FIELDS.get(key);
    if (rule === true) continue;
    const why = rule ? rule(value) : `Unknown parameter: '${key}'.`;
    if (why !== null) throw unsupportedParameter(why, key);
  }
}
