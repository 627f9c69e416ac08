/**
 * Read a JSON request body with a size limit enforced while streaming (413 before the whole
 * body is buffered), and a clear 400 for malformed JSON.
 */
import type { IncomingMessage } from 'node:http';
import { bodyIncomplete, bodyTooLarge, invalidJson, unsupportedMediaType } from '../kernel/errors.ts';

export async function readJsonBody(request: Request, limit: number, options: { requireJsonType?: boolean } = {}): Promise<unknown> {
  return (await readJson(request, limit, options)).value;
}

/** The parsed body and its text as received (the call log keeps the text: no re-serialising). */
export async function readJson(request: Request, limit: number, { requireJsonType = true } = {}): Promise<{ value: unknown; text: string }> {
  const type = request.headers.get('content-type') ?? '';
  if (requireJsonType && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) throw unsupportedMediaType();
  const declared = Number(request.headers.get('content-length'));
  if (declared > limit) throw bodyTooLarge(limit);
  const node = nodeRequest(request);
  const text = node ? await readNode(node, limit) : await readWeb(request, limit);
  try {
    return { value: JSON.parse(text), text };
  } catch {
    throw invalidJson();
  }
}

/**
 * The Node request under srvx's Request, while its body is still unread. Reading it directly
 * skips the web-stream adapter (Readable.toWeb), the costliest part of a small request.
 */
function nodeRequest(request: Request): IncomingMessage | null {
  const req = (request as Request & { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;
  if (!req || request.bodyUsed || req.readableEnded || req.listenerCount('data') > 0) return null;
  return req;
}

function readNode(req: IncomingMessage, limit: number): Promise<string> | string {
  const buffered = readBuffered(req, limit);
  if (buffered !== null) return buffered;
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        cleanup();
        // Stop keeping the oversized body; the rest is read and dropped so the 413 still arrives.
        req.resume();
        reject(bodyTooLarge(limit));
        return;
      }
      parts.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(parts.length === 1 ? parts[0].toString('utf8') : Buffer.concat(parts).toString('utf8'));
    };
    // The client's doing (it left, or sent a body the parser refused): a 400, never an unexpected error.
    const onError = (error: Error) => {
      cleanup();
      reject(bodyIncomplete(error));
    };
    const onClose = () => {
      cleanup();
      reject(bodyIncomplete(req.errored));
    };
    req.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
  });
}

/**
 * A small body usually arrives with the headers: the parser has then pushed all of it into the
 * request's buffer before the handler runs (`complete`). Taking it from there at once saves the
 * ticks of switching the stream to flowing mode and waiting for 'end'. Null: not all there yet.
 */
function readBuffered(req: IncomingMessage, limit: number): string | null {
  if (!req.complete || req.readableLength > limit) return null;
  const chunk = req.readableLength > 0 ? (req.read() as Buffer | null) : null;
  if (req.readableLength > 0) {
    // Not drained in one read (never expected when paused): give it back, take the stream path.
    if (chunk) req.unshift(chunk);
    return null;
  }
  return chunk ? chunk.toString('utf8') : '';
}

async function readWeb(request: Request, limit: number): Promise<string> {
  if (!request.body) throw invalidJson();
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((error: unknown) => {
      throw bodyIncomplete(error);
    });
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw bodyTooLarge(limit);
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}
