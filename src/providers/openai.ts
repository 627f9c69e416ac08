/**
 * The `compat` adapter: the OpenAI chat-completions wire format, which is also our internal
 * shape, so translation is mostly renaming the model and stripping gateway-only fields.
 */
import { TranslatorOf } from './stream-translator.ts';
import type { ChatChunk, ChatCompletion, ChatRequest } from './openai-types.ts';
import type { ProviderAdapter, SseEvent, StreamTranslator, Target, UpstreamErrorInfo, UpstreamRequest } from './types.ts';
import { UpstreamStreamError } from './types.ts';
import { openaiEmbeddings } from './openai-embeddings.ts';
import { RawChunkReader } from './openai-raw-chunks.ts';

/** Fields only the gateway understands; never sent upstream. */
const GATEWAY_ONLY = new Set(['fallbacks']);

/** The JSON body sent to an OpenAI-compatible upstream. */
export function openaiBody(request: ChatRequest, target: Target, stream: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key in request) if (!GATEWAY_ONLY.has(key) && request[key] !== undefined) body[key] = request[key];
  body.model = target.upstreamModel;
  if (stream) {
    body.stream = true;
    // Always ask for usage so the gateway can bill streams; the client only sees it if it asked.
    body.stream_options = Object.assign({}, request.stream_options, { include_usage: true });
  } else {
    delete body.stream;
    delete body.stream_options;
  }
  return body;
}

export function bearerHeaders(target: Target): Record<string, string> {
  const headers: Record<string, string> = Object.assign({ 'content-type': 'application/json' }, target.provider.headers);
  if (target.provider.api_key) headers.authorization = `Bearer ${target.provider.api_key}`;
  return headers;
}

export const trimSlash = (url: string) => (url.endsWith('/') ? url.slice(0, -1) : url);

export function parseOpenAIResponse(body: unknown, target: Target): ChatCompletion {
  const completion = body as ChatCompletion;
  if (!completion || typeof completion !== 'object' || !Array.isArray(completion.choices)) {
    throw new UpstreamStreamError('The upstream answered with an unexpected body.', {
      status: 502,
      message: 'The upstream answered with an unexpected body.',
      type: 'upstream_error',
      code: 'bad_upstream_response',
      param: null,
    });
  }
  completion.model = target.requestedAs;
  return completion;
}

/** OpenAI SSE: `data: {chunk}` frames ending with `data: [DONE]`; errors as `data: {"error":…}`. */
export function createOpenAITranslator(target: Target): StreamTranslator {
  let done = false;
  /** Reads the stream's common events as text (openai-raw-chunks.ts), once learned from a parsed one. */
  let reader: RawChunkReader | null = null;
  let learning = 2;
  return new TranslatorOf((event: SseEvent): ChatChunk[] => {
    if (event.data === '[DONE]') {
      done = true;
      return [];
    }
    const read = reader?.read(event.data);
    if (read) return [read];
    let chunk: ChatChunk & { error?: { message?: string; type?: string; code?: string | null; param?: string | null } };
    try {
      chunk = JSON.parse(event.data);
    } catch {
      return []; // a keep-alive or a non-JSON comment line some proxies send
    }
    if (chunk.error) {
      const info: UpstreamErrorInfo = {
        status: 502,
        message: chunk.error.message ?? 'The upstream reported an error mid-stream.',
        type: chunk.error.type ?? 'upstream_error',
        code: chunk.error.code ?? null,
        param: chunk.error.param ?? null,
      };
      throw new UpstreamStreamError(info.message, info);
    }
    if (!Array.isArray(chunk.choices)) return [];
    // Azure sends a leading chunk with prompt_filter_results and no choices: nothing to relay.
    if (chunk.choices.length === 0 && !chunk.usage) return [];
    // The first events with choices teach the reader the frame (an upstream whose frame is not
    // written the way JSON.stringify writes it is given up on after two).
    if (reader === null && learning > 0) {
      learning--;
      reader = RawChunkReader.learn(chunk, event.data, target.requestedAs);
    }
    chunk.model = target.requestedAs;
    return [chunk];
  }, () => done);
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

/** Normalise an OpenAI-style error body; tolerate HTML or empty bodies from proxies. */
export function parseOpenAIError(status: number, bodyText: string): UpstreamErrorInfo {
  let parsed: { error?: { message?: string; type?: string; code?: string | number | null; param?: string | null } | string; message?: string } | undefined;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    parsed = undefined;
  }
  const error = typeof parsed?.error === 'object' ? parsed.error : undefined;
  const message =
    error?.message ?? (typeof parsed?.error === 'string' ? parsed.error : undefined) ?? parsed?.message ??
    (bodyText.trim().slice(0, 200) || `Upstream answered HTTP ${status}.`);
  return {
    status,
    message,
    type: error?.type ?? ERROR_TYPES[status] ?? (status >= 500 ? 'upstream_error' : 'invalid_request_error'),
    code: error?.code === undefined || error.code === null ? null : String(error.code),
    param: error?.param ?? null,
  };
}

export const openaiAdapter: ProviderAdapter = {
  type: 'compat',
  // Many OpenAI-compatible servers continue a final assistant message, each its own way; the
  // provider or model config says which (`accepts_prefix`, `prefix_style`), and the request
  // fields that ask for it pass through openaiBody unchanged.
  supportsPrefix: true,
  prefixStyles: ['trailing_assistant', 'continue_final_message', 'prefix'],
  buildRequest(request, target, { stream }): UpstreamRequest {
    return {
      url: `${trimSlash(target.provider.endpoint)}/chat/completions`,
      headers: bearerHeaders(target),
      body: JSON.stringify(openaiBody(request, target, stream)),
    };
  },
  parseResponse: parseOpenAIResponse,
  createStreamTranslator: (target) => createOpenAITranslator(target),
  parseError: parseOpenAIError,
  embeddings: openaiEmbeddings,
};
