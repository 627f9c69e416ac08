/**
 * How the mock upstream answers: set per model by tests, or chosen by the model name for
 * manual use (`fail-503`, `slow-200`: 200 ms between chunks, `stall`, `cut`). The same
 * behaviours apply to every wire format the mock speaks.
 */
export interface Behavior {
  /** Answer this HTTP status with an OpenAI-style error body. */
  status?: number;
  errorBody?: unknown;
  retryAfter?: string;
  /** Wait before sending headers. */
  delayMs?: number;
  /** Wait between stream chunks. */
  chunkDelayMs?: number;
  /** Destroy the connection after this many content chunks. */
  cutAfterChunks?: number;
  /** Destroy the connection after every content chunk (or tool call) but before the finish and usage. */
  cutBeforeFinish?: boolean;
  /** End the response cleanly after this many content chunks: no finish, no end marker, no error. */
  truncateAfterChunks?: number;
  /** Stop sending (keep the connection open) after this many content chunks. */
  stallAfterChunks?: number;
  /** End the stream after the finish chunk without its end marker (`[DONE]`, `message_stop`). */
  omitDone?: boolean;
  /** After the finish (and usage) keep the connection open without the end marker. */
  holdAfterFinish?: boolean;
  /** The answer text (default: echo of the last user message). */
  reply?: string;
  /** JSON answers: wait this long between the body's pieces (headers first, then a slow body). */
  trickleMs?: number;
  /** Destroy the connection before sending any header. */
  resetBeforeHeaders?: boolean;
  /** Answer 200 whose body is an error (JSON body, or a stream whose first event is the error). */
  errorIn200?: boolean;
  /** Answer 200 with a body that is not JSON (JSON answers) or not JSON events (streams). */
  malformed?: boolean;
  /** Streams: after this many content chunks, send an error event and end. */
  errorEventAfterChunks?: number;
  /** Never finish: the answer grows without end (one JSON string, or content chunk after chunk). */
  endless?: boolean;
  /** Only the next N requests behave like this, then `then` (or the default) applies. */
  times?: number;
  then?: Behavior;
  /**
   * compat: the request flag this upstream needs to continue a trailing assistant message, as
   * real servers do (vLLM `continue_final_message`, DeepSeek/Mistral `prefix: true` on the
   * message). Without it the answer starts over from the beginning, repeating the prefix.
   */
  prefixStyle?: 'trailing_assistant' | 'continue_final_message' | 'prefix';
  /** Answer 400 to a request ending with an assistant message (an upstream without prefill). */
  refusePrefix?: boolean;
  /**
   * Answer 400 with this body to a request carrying `max_tokens`, as OpenAI's reasoning models do
   * (they take max_completion_tokens only).
   */
  maxTokensError?: unknown;
}

export function behaviorFromModel(model: string): Behavior {
  const fail = /^fail-(\d{3})$/.exec(model);
  if (fail) return { status: Number(fail[1]) };
  const slow = /^slow-(\d+)$/.exec(model);
  if (slow) return { chunkDelayMs: Number(slow[1]) };
  if (model === 'stall') return { stallAfterChunks: 1 };
  if (model === 'cut') return { cutAfterChunks: 2 };
  return {};
}
