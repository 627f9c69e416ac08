/**
 * Messages API errors (`{type:'error', error:{type, message}}`) → OpenAI error fields, for
 * HTTP error bodies and for `error` events inside a stream.
 */
import type { UpstreamErrorInfo } from './types.ts';
import { CONTEXT_LENGTH, fallbackMessage, tryJson, typeForStatus } from './shared.ts';
import { own } from '../kernel/own.ts';

/** Anthropic error type → [HTTP status it comes with, OpenAI type, OpenAI code]. */
const ERRORS: Record<string, [number, string, string | null]> = {
  invalid_request_error: [400, 'invalid_request_error', null],
  authentication_error: [401, 'authentication_error', 'invalid_api_key'],
  billing_error: [402, 'insufficient_quota', 'insufficient_quota'],
  permission_error: [403, 'permission_error', null],
  not_found_error: [404, 'not_found_error', null],
  request_too_large: [413, 'invalid_request_error', 'request_too_large'],
  rate_limit_error: [429, 'rate_limit_error', 'rate_limit_exceeded'],
  api_error: [500, 'upstream_error', null],
  timeout_error: [504, 'upstream_error', 'upstream_timeout'],
  overloaded_error: [529, 'upstream_error', 'overloaded'],
};

/**
 * Normalise a parsed error body. `status` is the HTTP status when there is one; stream error
 * events have none, so the status the error type comes with is used.
 */
export function anthropicErrorInfo(status: number | undefined, body: unknown, bodyText = ''): UpstreamErrorInfo {
  const error = (body as { error?: { type?: unknown; message?: unknown } } | undefined)?.error;
  const upstreamType = typeof error?.type === 'string' ? error.type : undefined;
  const known = upstreamType ? own(ERRORS, upstreamType) : undefined;
  const httpStatus = status ?? known?.[0] ?? 502;
  const message = typeof error?.message === 'string' && error.message ? error.message : fallbackMessage(httpStatus, bodyText);
  let code = known?.[2] ?? null;
  if (upstreamType === 'not_found_error' && /^model:/.test(message)) code = 'model_not_found';
  if ((upstreamType === 'invalid_request_error' || httpStatus === 400) && CONTEXT_LENGTH.test(message))
    code = 'context_length_exceeded';
  return { status: httpStatus, message, type: known?.[1] ?? typeForStatus(httpStatus), code, param: null };
}

/** `ProviderAdapter.parseError` for the Messages API. */
export const parseAnthropicError = (status: number, bodyText: string): UpstreamErrorInfo =>
  anthropicErrorInfo(status, tryJson(bodyText), bodyText);
