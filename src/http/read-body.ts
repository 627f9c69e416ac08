/**
 * Read a JSON request body with a size limit enforced while streaming (413 before the whole
 * body is buffered), and a clear 400 for malformed JSON.
 */
import { bodyTooLarge, invalidJson, unsupportedMediaType } from '../pipeline/errors.ts';

export async function readJsonBody(request: Request, limit: number, { requireJsonType = true } = {}): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (requireJsonType && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) throw unsupportedMediaType();
  const declared = Number(request.headers.get('content-length'));
  if (declared > limit) throw bodyTooLarge(limit);
  if (!request.body) throw invalidJson();
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw bodyTooLarge(limit);
    }
    parts.push(value);
  }
  const text = Buffer.concat(parts).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw invalidJson();
  }
}
