/**
 * What happened to one request, filled in as it goes and handed to every `onComplete`.
 */
import type { Usage } from '../providers/openai-types.ts';
import type { StreamAssembly } from './stream-assembly.ts';

export interface Attempt {
  /** The model identifier as the client wrote it. */
  model: string;
  provider: string;
  upstreamModel: string;
  /** HTTP status of the upstream, or 0 for a connect error / timeout. */
  status: number;
  errorCode: string | null;
  latencyMs: number;
  /**
   * `resumed` when this attempt continued a stream broken on the previous one; `hedged` when it
   * was started beside a late one (the first to send a token won, the other was cancelled).
   */
  kind?: 'first' | 'retry' | 'fallback' | 'resumed' | 'hedged';
  /**
   * The gateway passed this target over without calling it (its circuit open, or its wire format
   * unable to carry the request): no upstream fault, never counted against the upstream.
   */
  refused?: true;
  /** The gateway cancelled this call: it lost a hedged race (errorCode `hedge_cancelled`). No upstream fault. */
  cancelled?: true;
}

/** One guardrail's verdict on one stage (src/plugins/guardrails): never the text it matched. */
export interface GuardrailVerdict {
  guardrail: string;
  /** The check's type: regex, words, pii, secrets, size, json, webhook, moderation, or a plugin's. */
  check: string;
  stage: 'input' | 'output';
  action: 'block' | 'redact' | 'flag';
  /** `error`: the check could not answer (webhook down), `failed` says which way it failed. */
  result: 'pass' | 'blocked' | 'redacted' | 'flagged' | 'error';
  categories: string[];
  failed?: 'open' | 'closed';
}

export interface Outcome {
  status: number;
  error?: { code: string | null; message: string; type: string };
  /** `semantic-hit`: answered from a stored completion to a prompt worded alike (semantic-cache). */
  cache: 'hit' | 'semantic-hit' | 'miss' | 'off';
  /** The cosine similarity of the stored prompt that answered a semantic hit. */
  cacheSimilarity?: number;
  attempts: Attempt[];
  /** Target that produced the answer (last successful attempt). */
  served?: { model: string; provider: string; upstreamModel: string };
  usage?: Usage;
  /** Text the client received (stream or not), for usage estimates and logs. */
  text: string;
  /** The response body (non-stream) or assembled final message (stream), when known. */
  response?: unknown;
  /** A streamed answer being put back together (chat chunks, whatever the interface). */
  assembly?: StreamAssembly;
  /** `response` as the JSON text the client was sent, when the renderer wrote one (chat). */
  responseText?: string;
  streamed: boolean;
  /** Client went away before the end. */
  aborted: boolean;
  /** A stream the upstream really finished (finish_reason seen). */
  finished: boolean;
  /** The last finish_reason a stream carried (traces). */
  finishReason?: string;
  ttfbMs?: number;
  durationMs: number;
  /**
   * A hedge was started: whether it won, and the upstream tokens the call that lost cost (its
   * prompt, estimated, or its whole usage when its answer came anyway), never billed to the client.
   */
  hedge?: { won: boolean; tokens: number };
  /** The guardrails that ran and their verdicts; absent when none applied. */
  guardrails?: GuardrailVerdict[];
}

/**
 * Everything the answer generated, as text, for estimating its tokens when the upstream reported
 * no usage: the content, and for a stream its refusals, reasoning and tool calls too.
 */
export function generatedText(outcome: Outcome): string {
  const other = outcome.assembly?.otherOutput();
  return other ? outcome.text + other : outcome.text;
}

/** Answered from a cache (exact or semantic): no upstream tokens were bought. */
export const answeredFromCache = (outcome: Outcome) => outcome.cache === 'hit' || outcome.cache === 'semantic-hit';

/**
 * Every field there from the start, the optional ones undefined: the steps set them in orders of
 * their own (a stream, a whole answer, an error, a cache hit), and an outcome that grew its fields
 * in another order had another hidden class, so every site reading one met several.
 */
export function createOutcome(): Outcome {
  return {
    status: 0, error: undefined, cache: 'off', cacheSimilarity: undefined, attempts: [], served: undefined, usage: undefined,
    text: '', response: undefined, assembly: undefined, responseText: undefined, streamed: false, aborted: false,
    finished: false, finishReason: undefined, ttfbMs: undefined, durationMs: 0, hedge: undefined, guardrails: undefined,
  };
}
