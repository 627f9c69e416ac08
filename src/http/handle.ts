/**
 * The error boundary: every route handler runs inside `safe`, so any throw becomes an
 * OpenAI-shaped error answer; unexpected errors are logged and their message hidden.
 */
import { errorResponse, GatewayError, toGatewayError } from '../kernel/errors.ts';
import type { Logger } from '../kernel/logger.ts';
import { createRequestId } from '../kernel/request-id.ts';

/** How an interface writes an error answer: in its own shape, carrying `requestId`. */
export type ErrorShape = (error: GatewayError, requestId: string) => Response;

const openAIShape: ErrorShape = (error, requestId) => {
  const response = errorResponse(error);
  response.headers.set('x-request-id', requestId);
  return response;
};

/**
 * An error answer, with a request id of its own: one refused before the pipeline gave the request
 * its id (a bad body, an unknown id) still carries `x-request-id`, which the SDKs show as
 * `request_id` and the log line of an unexpected error names. In the OpenAI shape unless the
 * interface has its own (the Messages API's, Google's).
 */
export function renderError(thrown: unknown, logger: Logger, shape: ErrorShape = openAIShape): Response {
  const id = createRequestId();
  if (!GatewayError.is(thrown)) logger.error('unhandled error', { request: id, error: thrown instanceof Error ? thrown.stack : String(thrown) });
  return shape(toGatewayError(thrown), id);
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
