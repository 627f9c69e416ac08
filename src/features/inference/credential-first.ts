/**
 * A bad body from a caller whose credential is wrong answers 401, as OpenAI does, not 400: the
 * body is read and checked before the pipeline runs, so when that fails and the pipeline has
 * an auth step, the credential is resolved first (on this error path only).
 */
import { bearerToken, resolveCredential } from '../../auth/credentials.ts';
import { invalidApiKey } from '../../kernel/errors.ts';
import type { InferenceHost } from '../../pipeline/gateway.ts';

export async function readBodyCredentialFirst<T>(gateway: InferenceHost, request: Request, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (bodyError) {
    const { snapshot, pipeline } = gateway.config.current();
    if (pipeline.names.includes('auth')) {
      const token = bearerToken(request);
      if (!token || !(await resolveCredential(token, gateway.runtime, snapshot))) throw invalidApiKey();
    }
    throw bodyError;
  }
}
