/**
 * The generateContent URL and credential: `/api/v1beta/models/{model}:{method}` (the model may
 * hold slashes, `provider/model`, which the SDK writes unescaped), and the credential from
 * `x-goog-api-key`, the `key` query parameter or `Authorization: Bearer` — a gateway key or OAuth
 * token, never forwarded. The pipeline gets a request that carries it as a bearer token only,
 * with `key` gone from its URL, so nothing after this point (log, traces) can see it.
 */
import { GatewayError, invalidPath, notFound } from '../../kernel/errors.ts';
import { bearerToken } from '../../auth/credentials.ts';

export const MODELS_PREFIX = '/api/v1beta/models/';

export type GenerateMethod = 'generateContent' | 'streamGenerateContent' | 'countTokens';
const METHODS = new Set<string>(['generateContent', 'streamGenerateContent', 'countTokens']);

export interface GenerateCall {
  model: string;
  method: GenerateMethod;
  /** The request the pipeline sees: the credential as a bearer token, no `key` in the URL. */
  request: Request;
}

/** The model and method named by the path; 404 for any other method (as Google answers). */
export function parsePath(pathname: string): { model: string; method: GenerateMethod } {
  let rest: string;
  try {
    rest = decodeURIComponent(pathname.slice(MODELS_PREFIX.length));
  } catch {
    throw invalidPath();
  }
  const colon = rest.lastIndexOf(':');
  const method = colon === -1 ? '' : rest.slice(colon + 1);
  const model = colon === -1 ? rest : rest.slice(0, colon);
  if (!METHODS.has(method) || model === '') throw notFound(`No method '${method || '(none)'}' on models here: use :generateContent, :streamGenerateContent or :countTokens.`, 'route_not_found');
  return { model, method: method as GenerateMethod };
}

const missingKey = () =>
  new GatewayError(401, 'authentication_error', 'Missing API key: send x-goog-api-key (or the key query parameter, or Authorization: Bearer).', {
    code: 'invalid_api_key',
  });

/** The call named by `request`, with its credential moved to a bearer token (401 without one). */
export function readCall(request: Request): GenerateCall {
  const url = new URL(request.url);
  const { model, method } = parsePath(url.pathname);
  const token = request.headers.get('x-goog-api-key')?.trim() || url.searchParams.get('key') || bearerToken(request);
  if (!token) throw missingKey();
  url.searchParams.delete('key');
  const headers = new Headers(request.headers);
  headers.delete('x-goog-api-key');
  headers.set('authorization', `Bearer ${token}`);
  return { model, method, request: new Request(url, { method: request.method, headers }) };
}
