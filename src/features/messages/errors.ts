/**
 * Errors in the Messages API's shape, `{"type":"error","error":{"type","message"},"request_id"}`,
 * with its types and statuses, for every failure of the ingress (before and inside the pipeline)
 * and for the `error` event that ends a stream broken after its start. A Messages-API upstream's
 * own error answer passes through unchanged (src/providers/native.ts), except an upstream
 * credential problem, which is the gateway's, not the client's.
 */
import type { GatewayError } from '../../kernel/errors.ts';
import { nativeErrorOf } from '../../providers/native.ts';

export interface AnthropicError {
  type: 'error';
  error: { type: string; message: string };
  request_id?: string;
}

/** The gateway's status → the Messages API's [status, error type]; a status not listed keeps itself and its class. */
const BY_STATUS: Record<number, [number, string]> = {
  400: [400, 'invalid_request_error'],
  401: [401, 'authentication_error'],
  402: [402, 'billing_error'],
  403: [403, 'permission_error'],
  404: [404, 'not_found_error'],
  413: [413, 'request_too_large'],
  429: [429, 'rate_limit_error'],
  500: [500, 'api_error'],
  // No upstream could serve it (down, overloaded, circuits open): what Anthropic calls overloaded.
  503: [529, 'overloaded_error'],
  529: [529, 'overloaded_error'],
  504: [504, 'timeout_error'],
  502: [500, 'api_error'],
};

/** The Messages API's status and type for a gateway error. */
export function anthropicStatus(error: GatewayError): [number, string] {
  const known = BY_STATUS[error.status];
  if (known) return known;
  return error.status >= 500 ? [500, 'api_error'] : [error.status, 'invalid_request_error'];
}

/** The error body; `param` is named in the message, since the shape has no field for it. */
export function anthropicErrorBody(error: GatewayError, requestId?: string): AnthropicError {
  const [, type] = anthropicStatus(error);
  const message = error.param && !error.message.includes(error.param) ? `${error.param}: ${error.message}` : error.message;
  return { type: 'error', error: { type, message }, ...(requestId ? { request_id: requestId } : {}) };
}

/** The upstream's own error answer, when it may go to the client as it came. */
export function passedThrough(error: GatewayError) {
  const native = nativeErrorOf(error);
  // The upstream refusing the gateway's own key says nothing about the client's credential.
  if (!native || native.status === 401 || native.status === 403) return undefined;
  return native;
}

/**
 * The whole error answer: `headers` are the request's (request id, rate-limit state); the
 * error's own (Retry-After) are kept.
 */
export function anthropicErrorResponse(error: GatewayError, requestId: string, headers: Record<string, string>): Response {
  const native = passedThrough(error);
  const [status] = anthropicStatus(error);
  const all = Object.assign({}, headers, error.headers, native?.headers, { 'content-type': 'application/json', 'request-id': requestId, 'x-request-id': requestId });
  if (native) return new Response(native.body, { status: native.status, headers: all });
  return new Response(JSON.stringify(anthropicErrorBody(error, requestId)), { status, headers: all });
}
