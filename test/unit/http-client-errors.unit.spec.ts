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

  it('are otherwise a 400 BAD_REQUEST naming what the parser found wrong', () => {
    expect(fromParser(parserError('HPE_INVALID_METHOD', 'Invalid method encountered'))).toMatchObject({
      statusCode: 400, code: 'BAD_REQUEST', message: 'malformed HTTP request: Invalid method encountered',
    });
    expect(fromParser(parserError('HPE_SOMETHING_NEW'))).toMatchObject({ statusCode: 400, code: 'BAD_REQUEST', message: 'malformed HTTP request' });
  });
});
