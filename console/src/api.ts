/**
 * The public management API as the signed-in account: the same calls a script makes with a key
 * or token. Errors arrive in the OpenAI shape and become ApiError, whose `param` names the field.
 */
import { accessToken, SignedOut, type SignedOutReason } from './auth.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
    readonly param: string | null,
  ) {
    super(message);
  }
}

/** Called when the session is gone (no session cookie, or one that was ended or revoked). */
let onSignedOut: (reason: SignedOutReason, message: string) => void = () => {};
export const whenSignedOut = (handler: typeof onSignedOut) => (onSignedOut = handler);

/** A token, or the ApiError of a session that is gone (the page learns why through whenSignedOut). */
async function tokenOrSignedOut(force: boolean): Promise<string> {
  try {
    return await accessToken(force);
  } catch (error) {
    if (!(error instanceof SignedOut)) throw error;
    onSignedOut(error.reason, error.message);
    throw new ApiError(401, error.message, error.reason, null);
  }
}

async function send(method: string, path: string, body?: unknown, retried = false): Promise<Response> {
  const token = await tokenOrSignedOut(retried);
  const response = await fetch(path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // A refused token: ask the session for a new one once (it says so if the session itself is over).
  if (response.status === 401 && !retried) return send(method, path, body, true);
  if (!response.ok) {
    const text = await response.text();
    let error: { message?: string; code?: string | null; param?: string | null } = {};
    try {
      error = (JSON.parse(text) as { error?: typeof error }).error ?? {};
    } catch {}
    throw new ApiError(response.status, error.message ?? `The gateway answered ${response.status}.`, error.code ?? null, error.param ?? null);
  }
  return response;
}

export const api = {
  async get<T>(path: string, query?: Record<string, string | number | undefined>): Promise<T> {
    return (await send('GET', withQuery(path, query))).json() as Promise<T>;
  },
  async post<T>(path: string, body?: unknown): Promise<T> {
    return (await send('POST', path, body)).json() as Promise<T>;
  },
  async put<T>(path: string, body: unknown): Promise<T> {
    return (await send('PUT', path, body)).json() as Promise<T>;
  },
  async del(path: string): Promise<void> {
    await send('DELETE', path);
  },
  /** The raw answer (a stream the caller reads itself); errors are thrown as for the others. */
  raw(method: string, path: string, body?: unknown): Promise<Response> {
    return send(method, path, body);
  },
  /** A file answer (CSV export), as a Blob plus the server's file name. */
  async download(path: string, query?: Record<string, string | undefined>): Promise<{ blob: Blob; name: string }> {
    const response = await send('GET', withQuery(path, query));
    const disposition = response.headers.get('content-disposition') ?? '';
    const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? 'export.csv';
    return { blob: await response.blob(), name };
  },
};

export function withQuery(path: string, query?: Record<string, string | number | undefined>): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

export interface List<T> {
  object: 'list';
  data: T[];
}
