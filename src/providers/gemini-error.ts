/**
 * Google API errors (`{error:{code, message, status, details}}`) → OpenAI error fields, for
 * HTTP error bodies and for an error object arriving inside a stream.
 */
import type { UpstreamErrorInfo } from './types.ts';
import { CONTEXT_LENGTH, fallbackMessage, tryJson, typeForStatus } from './shared.ts';
import { own } from '../kernel/own.ts';

/** google.rpc status → [HTTP status it comes with, OpenAI type, OpenAI code]. */
const STATUSES: Record<string, [number, string, string | null]> = {
  INVALID_ARGUMENT: [400, 'invalid_request_error', null],
  FAILED_PRECONDITION: [400, 'invalid_request_error', null],
  OUT_OF_RANGE: [400, 'invalid_request_error', null],
  UNAUTHENTICATED: [401, 'authentication_error', 'invalid_api_key'],
  PERMISSION_DENIED: [403, 'permission_error', null],
  NOT_FOUND: [404, 'not_found_error', null],
  RESOURCE_EXHAUSTED: [429, 'rate_limit_error', 'rate_limit_exceeded'],
  CANCELLED: [499, 'upstream_error', null],
  INTERNAL: [500, 'upstream_error', null],
  UNKNOWN: [500, 'upstream_error', null],
  UNAVAILABLE: [503, 'upstream_error', 'upstream_unavailable'],
  DEADLINE_EXCEEDED: [504, 'upstream_error', 'upstream_timeout'],
};

/**
 * The google.rpc status an HTTP status stands for (the first in STATUSES that comes with it), for
 * errors written in Google's shape; others by class.
 */
export function rpcStatusFor(httpStatus: number): string {
  for (const [name, [status]] of Object.entries(STATUSES)) if (status === httpStatus) return name;
  if (httpStatus === 413) return 'INVALID_ARGUMENT'; // Google answers an oversized request so
  if (httpStatus === 501) return 'UNIMPLEMENTED';
  if (httpStatus === 502) return 'UNAVAILABLE';
  return httpStatus >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
}

/** UpstreamErrorInfo plus the wait Google puts in the body (RetryInfo) instead of a header. */
export interface GeminiErrorInfo extends UpstreamErrorInfo {
  retryAfterMs?: number;
}

interface GoogleError {
  code?: number;
  message?: string;
  status?: string;
  details?: Array<{ '@type'?: string; reason?: string; retryDelay?: string }>;
}

/** Normalise a parsed error body; `status` is the HTTP status, absent inside a stream. */
export function geminiErrorInfo(status: number | undefined, body: unknown, bodyText: string): GeminiErrorInfo {
  const error = (Array.isArray(body) ? body[0] : body as { error?: GoogleError } | undefined)?.error as GoogleError | undefined;
  const known = typeof error?.status === 'string' ? own(STATUSES, error.status) : undefined;
  let httpStatus = status ?? (typeof error?.code === 'number' ? error.code : undefined) ?? known?.[0] ?? 502;
  const message = error?.message || fallbackMessage(httpStatus, bodyText);
  let type = known?.[1] ?? typeForStatus(httpStatus);
  let code = known?.[2] ?? null;
  const details = error?.details ?? [];
  // A bad key comes back as 400 INVALID_ARGUMENT; say what it is.
  if (details.some((d) => d.reason === 'API_KEY_INVALID')) {
    httpStatus = 401;
    type = 'authentication_error';
    code = 'invalid_api_key';
  } else if (error?.status === 'NOT_FOUND' && /\bmodels\//.test(message)) code = 'model_not_found';
  else if (httpStatus === 400 && CONTEXT_LENGTH.test(message)) code = 'context_length_exceeded';
  const info: GeminiErrorInfo = { status: httpStatus, message, type, code, param: null };
  const delay = details.find((d) => typeof d.retryDelay === 'string')?.retryDelay;
  const seconds = delay ? Number.parseFloat(delay) : Number.NaN;
  if (Number.isFinite(seconds)) info.retryAfterMs = Math.round(seconds * 1000);
  return info;
}

/** `ProviderAdapter.parseError` for generateContent. */
export const parseGeminiError = (status: number, bodyText: string): GeminiErrorInfo =>
  geminiErrorInfo(status, tryJson(bodyText), bodyText);
