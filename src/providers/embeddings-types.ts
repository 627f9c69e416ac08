/**
 * The OpenAI embeddings shapes the gateway speaks, and the optional part of an adapter that
 * translates them for a wire format. A format without `embeddings` cannot serve them (400).
 */
import type { Target, UpstreamErrorInfo, UpstreamRequest } from './upstream-types.ts';
import type { Usage } from './openai-types.ts';

/** `input` as validated by schemas/api/embeddings.schema.json. */
export type EmbeddingsInput = string | string[] | number[] | number[][];

export interface EmbeddingsRequest {
  model: string;
  input: EmbeddingsInput;
  encoding_format?: 'float' | 'base64';
  dimensions?: number;
  user?: string;
  /** generateContent's `taskType` (RETRIEVAL_QUERY, SEMANTIC_SIMILARITY, ...), passed through. */
  task_type?: string;
  fallbacks?: string[];
  [key: string]: unknown;
}

export interface EmbeddingItem {
  object: 'embedding';
  index: number;
  /** Floats inside the gateway; base64 only in the answer of a client that asked for it. */
  embedding: number[] | string;
}

export interface EmbeddingsResponse {
  object: 'list';
  data: EmbeddingItem[];
  model: string;
  usage: Pick<Usage, 'prompt_tokens' | 'total_tokens'> & Partial<Usage>;
}

/** One wire format's embeddings translation (the upstream is always asked for floats). */
export interface EmbeddingsWire {
  buildRequest(request: EmbeddingsRequest, target: Target): UpstreamRequest;
  /** The OpenAI-shaped answer with float vectors; `model` is `target.requestedAs`. */
  parseResponse(body: unknown, request: EmbeddingsRequest, target: Target): EmbeddingsResponse;
}

/** The error an adapter raises when the upstream's answer is not what its format promises. */
export const badEmbeddingsBody = (what: string): UpstreamErrorInfo => ({
  status: 502,
  message: `The upstream answered embeddings with an unexpected body (${what}).`,
  type: 'upstream_error',
  code: 'bad_upstream_response',
  param: null,
});

/** The inputs as a list (a single string or a single token array is one input). */
export function inputList(input: EmbeddingsInput): Array<string | number[]> {
  if (typeof input === 'string') return [input];
  if (input.length > 0 && typeof input[0] === 'number') return [input as number[]];
  return input as Array<string | number[]>;
}
