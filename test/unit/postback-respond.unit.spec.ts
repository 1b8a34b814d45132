import type { FastifyRequest } from 'fastify';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { PostbackRejection } from '../../commands/postbacks/rejections.js';
import { ApiError } from '../../platform/http/errors.js';
import { detailHeaderValue, rejectionOf } from '../../services/api/routes/postbacks/respond.js';

const request = () => ({ log: { error: vi.fn() }, method: 'POST', url: '/v1/postback/x' }) as unknown as FastifyRequest;

describe('postback refusals from thrown errors', () => {
  it('keeps a rejection as it is', () => {
    expect(rejectionOf(new PostbackRejection('identity_conflict', 'changed', true), request())).toEqual({ reason: 'identity_conflict', eventLogged: true, detail: 'changed' });
  });

  it("maps the HTTP layer's own refusals to their postback reasons", () => {
    expect(rejectionOf(new ApiError(413, 'PAYLOAD_TOO_LARGE', 'too big'), request()).reason).toBe('payload_too_large');
    expect(rejectionOf(new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'no'), request()).reason).toBe('unsupported_media_type');
    expect(rejectionOf(new ApiError(400, 'BAD_REQUEST', 'bad'), request()).reason).toBe('invalid_payload');
  });

  it('answers anything unexpected as a retryable internal_error, logged, with nothing of it in the detail', () => {
    const req = request();
    const refusal = rejectionOf(new TypeError('cannot read properties of undefined (secret internals)'), req);
    expect(refusal).toEqual({ reason: 'internal_error', eventLogged: false, detail: expect.not.stringContaining('secret') });
    expect(req.log.error).toHaveBeenCalledOnce();
  });
});

describe('SVC-Error-Detail', () => {
  it('writes what a header cannot hold as JSON escapes, so an explanation naming a non-ASCII key is still sent', () => {
    expect(detailHeaderValue('unknown field "ü😀"')).toBe('unknown field "\\u00fc\\ud83d\\ude00"');
    expect(detailHeaderValue('a\\b\nc')).toBe('a\\\\b\\u000ac');
    expect(detailHeaderValue('plain ASCII stays as it is')).toBe('plain ASCII stays as it is');
  });

  it('is always visible ASCII of at most 300 characters, and reads back as the explanation when not cut', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (detail) => {
        const value = detailHeaderValue(detail);
        expect(value).toMatch(/^[\x20-\x7e]*$/);
        expect(value.length).toBeLessThanOrEqual(300);
        if (!value.endsWith('...')) expect(JSON.parse(`"${value.replace(/"/g, '\\"')}"`)).toBe(detail);
      }),
    );
  });
});
