/**
 * The error boundary: every route handler runs inside `safe`, so any throw becomes an
 * OpenAI-shaped error answer; unexpected errors are logged and their message hidden.
 */
import { errorResponse, GatewayError, toGatewayError } from '../kernel/errors.ts';
import type { Logger } from '../kernel/logger.ts';
import { createRequestId } from '../kernel/request-id.ts';

/**
 * An error answer, with a request id of its own: one refused before the pipeline gave the request
 * its id (a bad body, an unknown id) still carries `x-request-id`, which the SDKs show as
 * `request_id` and the log line of an unexpected error names.
 */
export function renderError(thrown: unknown, logger: Logger): Response {
  const error = toGatewayError(thrown);
  const id = createRequestId();
  if (!GatewayError.is(thrown)) logger.error('unhandled error', { request: id, error: thrown instanceof Error ? thrown.stack : String(thrown) });
  const response = errorResponse(error);
  response.headers.set('x-request-id', id);
  return response;
}

export function safe<A extends unknown[]>(logger: Logger, fn: (...args: A) => Promise<Response> | Response) {
  return async (...args: A): Promise<Response> => {
    try {
      return await fn(...args);
    } catch (error) {
      return renderError(error, logger);
    }
  };
}
