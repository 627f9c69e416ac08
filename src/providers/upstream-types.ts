/**
 * Where an attempt goes and what is sent there: the types every wire format shares (types.ts
 * re-exports them), apart from the adapter contract so that embeddings-types.ts can use them too.
 */
import type { ModelConfig, ProviderConfig } from '../config/types.ts';

/** Where one attempt goes: a provider, the model name sent upstream, and the config behind it. */
export interface Target {
  provider: ProviderConfig;
  /** Model config that resolved this target, when there is one. */
  model?: ModelConfig;
  /** The name sent upstream. */
  upstreamModel: string;
  /** The identifier as the client wrote it (in `model` or `fallbacks`): echoed in answers. */
  requestedAs: string;
}

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** An upstream error normalised to the OpenAI error fields. */
export interface UpstreamErrorInfo {
  status: number;
  message: string;
  type: string;
  code: string | null;
  param: string | null;
}
