import { maxHeaderSize } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientErrorOf, clientErrorResponse } from './client-error.ts';

const parserError = (code: string, reason?: string) => Object.assign(new Error('Parse Error'), { code, reason });

describe('the answers to the HTTP parser refusals', () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 431, 'request_header_fields_too_large'],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 413, 'chunk_extensions_too_large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'request_timeout'],
    ['HPE_INVALID_METHOD', 400, 'malformed_request'],
    ['HPE_UNEXPECTED_CONTENT_LENGTH', 400, 'malformed_request'],
    ['HPE_INVALID_CHUNK_SIZE', 400, 'malformed_request'],
  ])('%s is %i %s', (code, status, name) => {
    const error = clientErrorOf(parserError(code, 'Some reason'));
    expect({ status: error.status, code: error.code, type: error.type }).toEqual({ status, code: name, type: 'invalid_request_error' });
  });

  it("names llhttp's reason, never anything else the error carries", () => {
    expect(clientErrorOf(parserError('HPE_INVALID_METHOD', 'Invalid method encountered')).message).toBe('The request is not valid HTTP/1.1: Invalid method encountered.');
    expect(clientErrorOf(parserError('HPE_X', 'bad\r\ninjected: 1')).message).toBe('The request is not valid HTTP/1.1: malformed request.');
    expect(clientErrorOf(parserError('HPE_X')).message).toBe('The request is not valid HTTP/1.1: malformed request.');
    expect(clientErrorOf(parserError('HPE_HEADER_OVERFLOW')).message).toContain(String(maxHeaderSize));
  });

  it('writes a complete HTTP/1.1 response that closes the connection', () => {
    const text = clientErrorResponse(clientErrorOf(parserError('HPE_HEADER_OVERFLOW')), 'req_0123', new Date(0));
    const [head, body] = text.split('\r\n\r\n');
    expect(head!.split('\r\n')).toEqual([
      'HTTP/1.1 431 Request Header Fields Too Large',
      'content-type: application/json',
      `content-length: ${Buffer.byteLength(body!)}`,
      'x-request-id: req_0123',
      'date: Thu, 01 Jan 1970 00:00:00 GMT',
      'connection: close',
    ]);
    expect(JSON.parse(body!)).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: 'request_header_fields_too_large' } });
  });
});
