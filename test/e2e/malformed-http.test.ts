/**
 * Requests Node's HTTP parser refuses before any route (headers or URL too large, an unknown
 * method, Content-Length with chunked, a bad chunk, oversized chunk extensions) are answered in the
 * OpenAI error shape with an `x-request-id`, as a complete HTTP/1.1 response that closes the
 * connection. Sent as raw bytes (net.connect): no HTTP client would send them.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY, recordingLogger, useGateway } from '../_setup.ts';

const logger = recordingLogger();
const env = useGateway('chat.yaml', {}, { logger });

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `request` on a new connection and reads until the server closes it. */
function raw(request: string): Promise<RawAnswer> {
  const { port } = new URL(env.gw.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(request);
  });
}

function expectShape(answer: RawAnswer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  expect(answer.headers['connection']).toBe('close');
  expect(answer.headers['content-type']).toBe('application/json');
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  const body = JSON.parse(answer.body);
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toEqual({ message: expect.any(String), type: 'invalid_request_error', param: null, code });
  return body.error as { message: string };
}

const chatHead = (extra: string) =>
  `POST /api/v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${DEMO_KEY}\r\nContent-Type: application/json\r\n${extra}\r\n`;

describe("the HTTP parser's refusals, in the error shape", () => {
  it('headers larger than the limit are 431', async () => {
    const error = expectShape(await raw(`GET /v1/system/health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431, 'request_header_fields_too_large');
    expect(error.message).toContain('16384 bytes');
  });

  it('a URL larger than the limit is 431', async () => {
    expectShape(await raw(`GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`), 431, 'request_header_fields_too_large');
  });

  it('an unknown method is 400 malformed_request', async () => {
    const error = expectShape(await raw('FROB /v1/system/health HTTP/1.1\r\nHost: localhost\r\n\r\n'), 400, 'malformed_request');
    expect(error.message).toMatch(/^The request is not valid HTTP\/1\.1: .+\.$/);
  });

  it('Content-Length together with chunked is 400 malformed_request', async () => {
    expectShape(await raw(chatHead('Content-Length: 5\r\nTransfer-Encoding: chunked\r\n') + '0\r\n\r\n'), 400, 'malformed_request');
  });

  it('a bad chunk size is 400 malformed_request, and nothing reaches the upstream', async () => {
    expectShape(await raw(chatHead('Transfer-Encoding: chunked\r\n') + 'zz\r\n{}\r\n0\r\n\r\n'), 400, 'malformed_request');
    expect(env.mock.requests).toHaveLength(0);
  });

  it('oversized chunk extensions are 413', async () => {
    expectShape(await raw(chatHead('Transfer-Encoding: chunked\r\n') + `2;${'x'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`), 413, 'chunk_extensions_too_large');
  });

  it("logs none of them as an unexpected error (a body cut by the parser is the client's doing)", () => {
    expect(logger.lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('a well-formed request on the same server is still answered normally', async () => {
    const answer = await raw('GET /v1/system/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(answer.status).toBe(200);
  });
});
