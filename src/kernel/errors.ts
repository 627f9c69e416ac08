/**
 * The one error class of the gateway and its catalog of factories. Plugins and routes throw these;
 * only the server's error boundary renders them, always as the OpenAI error shape.
 */
const kGatewayError = Symbol.for('gateway.error');

export interface GatewayErrorOptions {
  code?: string | null;
  param?: string | null;
  headers?: Record<string, string>;
  cause?: unknown;
  /** May another target be tried after this failure (fallback)? */
  retryable?: boolean;
}

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export class GatewayError extends Error {
  readonly [kGatewayError] = true;
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;
  readonly headers: Record<string, string>;
  readonly retryable: boolean;

  constructor(status: number, type: string, message: string, options: GatewayErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'GatewayError';
    this.status = status;
    this.type = type;
    this.code = options.code ?? null;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
    this.retryable = options.retryable ?? false;
  }

  /** Brand check that survives duplicated module instances (custom plugins bundling their own copy). */
  static is(value: unknown): value is GatewayError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kGatewayError] === true;
  }

  toJSON(): ErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** Render any thrown value as an OpenAI-shaped error body; unknown errors hide their message. */
export function toGatewayError(value: unknown): GatewayError {
  if (GatewayError.is(value)) return value;
  return internalError(value);
}

export function errorResponse(error: GatewayError): Response {
  return new Response(JSON.stringify(error.toJSON()), {
    status: error.status,
    headers: Object.assign({ 'content-type': 'application/json' }, error.headers),
  });
}

const invalid = (message: string, code: string, param: string | null = null) =>
  new GatewayError(400, 'invalid_request_error', message, { code, param });

export const invalidBody = (message: string, param: string | null = null) => invalid(message, 'invalid_body', param);
export const invalidValue = (message: string, param: string | null = null) => invalid(message, 'invalid_value', param);
export const invalidJson = () => invalid('The request body is not valid JSON.', 'invalid_json');
/** The prompt (estimated) plus the completion allowance exceed every candidate model's context. */
export const contextLengthExceeded = (message: string) => invalid(message, 'context_length_exceeded', 'messages');
/** The request needs a capability (tools, images, JSON mode) no candidate model declares. */
export const capabilityNotSupported = (message: string, param: string) => invalid(message, 'capability_not_supported', param);
/** The model's upstream wire format has no embeddings endpoint (vendor_b, custom). */
export const embeddingsNotSupported = (message: string) => invalid(message, 'embeddings_not_supported', 'model');
/** A request value an upstream wire format cannot carry (e.g. a malformed tool call). */
export const unsupportedParameter = (message: string, param: string) => invalid(message, 'unsupported_parameter', param);
/** A field the resource does not have (settings PUT). */
export const unknownField = (field: string) => invalid(`Unknown settings field '${field}'.`, 'unknown_field', field);
/** A one-time code past its lifetime. */
export const codeExpired = (message: string) => invalid(message, 'code_expired', 'code');
/** A feature switched off in the system config (`features.*`). */
export const featureDisabled = (message: string, param: string) => invalid(message, 'feature_disabled', param);
/** A field of a PUT body that only the gateway sets (`id`, `created_at`, a key's `account_id`...). */
export const readOnlyField = (field: string, what: string) =>
  invalid(`\`${field}\` is read-only (${what}): a PUT may send it back unchanged, never with another value.`, 'read_only_field', field);
export const invalidPath = () => invalid('The request path has malformed percent-encoding (a % must be followed by two hex digits).', 'invalid_path');
export const unsupportedMediaType = () =>
  new GatewayError(415, 'invalid_request_error', 'Content-Type must be application/json.', {
    code: 'unsupported_media_type',
  });
export const bodyTooLarge = (limit: number) =>
  new GatewayError(413, 'invalid_request_error', `The request body exceeds the limit of ${limit} bytes.`, {
    code: 'body_too_large',
  });
/** Refusals of Node's HTTP parser, before any route (http/client-error.ts). */
export const headersTooLarge = (limit: number) =>
  new GatewayError(431, 'invalid_request_error', `The request line and headers exceed the limit of ${limit} bytes.`, {
    code: 'request_header_fields_too_large',
  });
export const malformedRequest = (reason: string) =>
  new GatewayError(400, 'invalid_request_error', `The request is not valid HTTP/1.1: ${reason}.`, { code: 'malformed_request' });
export const chunkExtensionsTooLarge = () =>
  new GatewayError(413, 'invalid_request_error', 'The chunk extensions of the request body are too large.', { code: 'chunk_extensions_too_large' });
/** The client closed the connection, or the parser refused the body, before the body ended. */
export const bodyIncomplete = (cause?: unknown) =>
  new GatewayError(400, 'invalid_request_error', 'The request body ended before it was complete.', { code: 'body_incomplete', cause });
export const requestTimeout = () =>
  new GatewayError(408, 'invalid_request_error', 'The request did not arrive in time.', { code: 'request_timeout' });

export const missingApiKey = () =>
  new GatewayError(401, 'authentication_error', 'Missing API key: send Authorization: Bearer <key>.', {
    code: 'invalid_api_key',
  });
export const invalidApiKey = () =>
  new GatewayError(401, 'authentication_error', 'Invalid API key.', { code: 'invalid_api_key' });
/** `GET /metrics` with `metrics.token` set, called without it. */
export const invalidMetricsToken = () =>
  new GatewayError(401, 'authentication_error', 'Metrics need Authorization: Bearer <metrics token>.', {
    code: 'invalid_metrics_token',
    headers: { 'www-authenticate': 'Bearer realm="metrics"' },
  });

export const modelNotPermitted = (model: string, param = 'model') =>
  new GatewayError(403, 'permission_error', `This key may not use the model '${model}'.`, {
    code: 'model_not_permitted',
    param,
  });
export const forbidden = (message: string, code = 'forbidden') =>
  new GatewayError(403, 'permission_error', message, { code });
export const insufficientScope = (scope: string) =>
  new GatewayError(403, 'permission_error', `This token lacks the scope '${scope}'.`, { code: 'insufficient_scope' });
export const ipNotAllowed = (ip: string) =>
  new GatewayError(403, 'permission_error', `Requests from ${ip} are not allowed for this account.`, {
    code: 'ip_not_allowed',
  });

export const notFound = (what: string, code = 'not_found') =>
  new GatewayError(404, 'not_found_error', what, { code });
export const routeNotFound = (method: string, path: string) =>
  new GatewayError(404, 'not_found_error', `No route for ${method} ${path}.`, { code: 'route_not_found' });
export const methodNotAllowed = (method: string, path: string, allow: string[]) =>
  new GatewayError(405, 'invalid_request_error', `Method ${method} is not allowed on ${path}.`, {
    code: 'method_not_allowed',
    headers: { allow: allow.join(', ') },
  });
export const modelNotFound = (model: string, param = 'model') =>
  new GatewayError(404, 'not_found_error', `The model '${model}' does not exist or is not available.`, {
    code: 'model_not_found',
    param,
    retryable: true,
  });
export const conflict = (message: string, code = 'conflict') =>
  new GatewayError(409, 'invalid_request_error', message, { code });

export const rateLimited = (retryAfterS: number, headers: Record<string, string> = {}, message?: string) =>
  new GatewayError(429, 'rate_limit_error', message ?? 'Rate limit exceeded. Retry later.', {
    code: 'rate_limit_exceeded',
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterS))), ...headers },
  });
/**
 * A spent token budget. `retryAfterS`: seconds until a periodic budget starts over (Retry-After);
 * omitted for a budget that never does, where waiting would not help. `headers`: the rate headers
 * the check computed.
 */
export const insufficientQuota = (message: string, retryAfterS?: number, headers: Record<string, string> = {}) =>
  new GatewayError(429, 'insufficient_quota', message, {
    code: 'insufficient_quota',
    headers: retryAfterS === undefined ? headers : { 'retry-after': String(Math.max(1, Math.ceil(retryAfterS))), ...headers },
  });

/** The upstream's own refusal of the request (a 4xx other than auth), passed on as it said it. */
export const upstreamRefusal = (status: number, type: string, message: string, code: string | null, param: string | null) =>
  new GatewayError(status, type || 'invalid_request_error', message, { code, param });
/** The upstream's rate limit, passed on with its Retry-After. */
export const upstreamRateLimited = (message: string, code: string | null, retryAfterS: number) =>
  new GatewayError(429, 'rate_limit_error', message, { code: code ?? 'rate_limit_exceeded', headers: { 'retry-after': String(retryAfterS) } });
/** The upstream stream ended, broke off or stalled after the answer had started. */
export const streamInterrupted = (message = 'The upstream ended the stream before finishing the answer.') =>
  new GatewayError(502, 'upstream_error', message, { code: 'stream_interrupted' });
export const streamStalled = (message: string) => new GatewayError(504, 'upstream_error', message, { code: 'upstream_timeout' });
/** A provider whose wire format has no adapter (a plugin adapter gone after a reload). */
export const adapterNotFound = (message: string) => new GatewayError(500, 'server_error', message, { code: 'adapter_not_found' });
export const upstreamUnavailable = (message = 'No upstream could serve the request.', cause?: unknown) =>
  new GatewayError(503, 'upstream_error', message, { code: 'upstream_unavailable', cause, retryable: true });
export const upstreamTimeout = (message: string, cause?: unknown) =>
  new GatewayError(504, 'upstream_error', message, { code: 'upstream_timeout', cause, retryable: true });
export const serviceUnavailable = (message: string, code = 'service_unavailable') =>
  new GatewayError(503, 'server_error', message, { code });
/** The client closed the connection before the answer (nginx's 499); only logs ever see it. */
export const clientClosed = (message = 'The client closed the connection before the answer was ready.') =>
  new GatewayError(499, 'invalid_request_error', message, { code: 'client_closed' });
export const internalError = (cause?: unknown) =>
  new GatewayError(500, 'server_error', 'The server had an error while processing the request.', {
    code: 'internal_error',
    cause,
  });
/**
 * A guardrail refused the request's input or the model's output. The message names the guardrail
 * and the categories found, never the text that matched (it may be the very secret).
 */
export const guardrailBlocked = (guardrail: string, stage: 'input' | 'output', categories: readonly string[]) =>
  new GatewayError(
    400,
    'invalid_request_error',
    `guardrail_blocked: the ${stage === 'input' ? 'request' : 'answer'} was blocked by guardrail '${guardrail}'${categories.length ? ` (${categories.join(', ')})` : ''}.`,
    { code: 'guardrail_blocked', param: guardrail },
  );
/** A fail-closed guardrail whose external check (webhook, moderation model) could not answer. */
export const guardrailUnavailable = (guardrail: string, stage: 'input' | 'output') =>
  new GatewayError(503, 'server_error', `guardrail_unavailable: guardrail '${guardrail}' could not check the ${stage === 'input' ? 'request' : 'answer'} and fails closed.`, {
    code: 'guardrail_unavailable',
    param: guardrail,
  });
