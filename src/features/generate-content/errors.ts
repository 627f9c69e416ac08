/**
 * Errors in Google's shape, `{"error":{"code","message","status","details"}}`: the HTTP status as
 * `code`, its google.rpc name as `status`, and in `details` the gateway's own error code
 * (ErrorInfo `reason`) and a wait to retry after (RetryInfo), where there are.
 */
import { GatewayError, toGatewayError } from '../../kernel/errors.ts';
import { rpcStatusFor } from '../../providers/gemini-error.ts';

export interface GoogleErrorBody {
  error: { code: number; message: string; status: string; details?: Array<Record<string, unknown>> };
}

export function googleError(error: GatewayError): GoogleErrorBody {
  const details: Array<Record<string, unknown>> = [];
  if (error.code) {
    const info: Record<string, unknown> = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: error.code, domain: 'gateway' };
    if (error.param) info.metadata = { param: error.param };
    details.push(info);
  }
  const retryAfter = Number(error.headers['retry-after'] ?? error.headers['Retry-After']);
  if (Number.isFinite(retryAfter) && retryAfter >= 0) details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` });
  const body: GoogleErrorBody = { error: { code: error.status, message: error.message, status: rpcStatusFor(error.status) } };
  if (details.length) body.error.details = details;
  return body;
}

/** The error answer; its own headers (Retry-After) and `extra` (the request id) kept. */
export function googleErrorResponse(thrown: unknown, extra: Iterable<readonly [string, string]> = []): Response {
  const error = toGatewayError(thrown);
  const headers = new Headers(Object.assign({ 'content-type': 'application/json; charset=UTF-8' }, error.headers));
  for (const [name, value] of extra) if (!headers.has(name)) headers.set(name, value);
  return new Response(JSON.stringify(googleError(error)), { status: error.status, headers });
}

export { GatewayError };
