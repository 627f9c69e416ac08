/**
 * The error boundary: every route handler runs inside `safe`, so any throw becomes an
 * OpenAI-shaped error answer; unexpected errors are logged and their message hidden.
 */
import { errorResponse, GatewayError, toGatewayError } from '../kernel/errors.ts';
import type { Logger } from '../kernel/logger.ts';

export function renderError(thrown: unknown, logger: Logger): Response {
  const error = toGatewayError(thrown);
  if (!GatewayError.is(thrown)) logger.error('unhandled error', { error: thrown instanceof Error ? thrown.stack : String(thrown) });
  return errorResponse(error);
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
