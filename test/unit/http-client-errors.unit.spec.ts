import { describe, expect, it } from 'vitest';
import { fromParser, type ParserError } from '../../platform/http/client-errors.js';

const parserError = (code: string, reason?: string): ParserError => Object.assign(new Error(code), { code, reason });

describe('requests the HTTP parser refuses', () => {
  it('keep the status Node itself would answer, with a stable code', () => {
    expect(fromParser(parserError('HPE_HEADER_OVERFLOW'))).toMatchObject({ statusCode: 431, code: 'REQUEST_HEADER_FIELDS_TOO_LARGE' });
    expect(fromParser(parserError('HPE_CHUNK_EXTENSIONS_OVERFLOW'))).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
    // Headers or body not received within the server's timeouts.
    expect(fromParser(parserError('ERR_HTTP_REQUEST_TIMEOUT'))).toMatchObject({ statusCode: 408, code: 'REQUEST_TIMEOUT' });
  });

  it('are otherwise a 400 BAD_REQUEST saying which part is malformed, in our words (never the parser\'s reason)', () => {
    expect(fromParser(parserError('HPE_INVALID_HEADER_TOKEN', 'Invalid header token'))).toMatchObject({
      statusCode: 400, code: 'BAD_REQUEST', message: 'malformed HTTP request: a header line is malformed',
    });
    expect(fromParser(parserError('HPE_INVALID_CONSTANT', 'Expected HTTP/')).message).toBe('malformed HTTP request: the request line is malformed; send METHOD /path?query HTTP/1.1');
    expect(fromParser(parserError('HPE_INVALID_EOF_STATE', 'Invalid EOF state')).message).toMatch(/body is not framed/);
    expect(fromParser(parserError('HPE_SOMETHING_NEW', 'Something internal'))).toMatchObject({ statusCode: 400, code: 'BAD_REQUEST', message: 'malformed HTTP request: a header line is malformed' });
  });

  it('a method it does not know: 405 naming the path\'s methods, 404 on a path without routes, 400 when the request line cannot be read', () => {
    const refused = (method: string, target: string) => ({ method, target, head: `${method} ${target} HTTP/1.1\r\n` });
    const allowedAt = (path: string) => (path === '/v1/offers/instances' ? ['POST'] : []);
    expect(fromParser(parserError('HPE_INVALID_METHOD'), refused('get', '/v1/offers/instances?x=1'), allowedAt)).toMatchObject({ statusCode: 405, code: '405', headers: { allow: 'POST' } });
    expect(fromParser(parserError('HPE_INVALID_METHOD'), refused('BREW', '/nowhere'), allowedAt)).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
    expect(fromParser(parserError('HPE_INVALID_METHOD', 'Invalid method encountered'))).toMatchObject({ statusCode: 400, message: 'malformed HTTP request: the method is not one this service knows' });
  });
});
