/**
 * The answers to requests Node's HTTP parser refuses before any route sees them: headers or URL
 * too large (431), a malformed request (400: an unknown method, Content-Length together with
 * chunked, a bad chunk), chunk extensions too large (413), headers too slow (408). Node's own
 * answers to these are a bare status line with an empty body; ours carry the OpenAI error shape and
 * an `x-request-id`, like every other answer of the gateway.
 *
 * They are written on the socket by hand (the parser is done with it: there is no request and no
 * response object), as a complete HTTP/1.1 response with `connection: close`, and the connection
 * closes once it is sent. Like Node, nothing is written on a socket that already sent bytes (a
 * keep-alive connection mid-response would be corrupted) or that the peer has gone from.
 */
import { maxHeaderSize, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { chunkExtensionsTooLarge, headersTooLarge, malformedRequest, requestTimeout, type GatewayError } from '../kernel/errors.ts';
import { createRequestId } from '../kernel/request-id.ts';

/** What Node puts on a parser error: an `HPE_*` code and llhttp's fixed description. */
interface ParserError extends Error {
  code?: string;
  reason?: string;
}

/** The gateway's error for a parser refusal. */
export function clientErrorOf(error: ParserError): GatewayError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return headersTooLarge(maxHeaderSize);
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return chunkExtensionsTooLarge();
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return requestTimeout();
    default: {
      // llhttp's reasons are constant texts ("Invalid method encountered"), never the request's bytes.
      const reason = typeof error.reason === 'string' && /^[\x20-\x7e]{1,200}$/.test(error.reason) ? error.reason.replace(/\.$/, '') : 'malformed request';
      return malformedRequest(reason);
    }
  }
}

/** The whole HTTP/1.1 response for `error`, ready for the socket. */
export function clientErrorResponse(error: GatewayError, requestId: string, now = new Date()): string {
  const body = JSON.stringify(error.toJSON());
  const head = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    `x-request-id: ${requestId}`,
    `date: ${now.toUTCString()}`,
    'connection: close',
  ];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

/** Answers the parser's refusals on `server` in the error shape (replaces Node's default answers). */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: ParserError, socket: Duplex & { bytesWritten?: number }) => {
    if (error.code === 'ECONNRESET' || !socket.writable || (socket.bytesWritten ?? 0) > 0) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorResponse(clientErrorOf(error), createRequestId()), () => socket.destroy());
  });
}
