import { describe, expect, it } from 'vitest';
import { POSTBACK_REASONS } from '../../commands/postbacks/rejections.js';

/**
 * The reference's postback status table: a 4xx is a terminal rejection with `retryable` false
 * ("correct the request before resending"), a 500 or 503 is `retryable` true. Every reason the
 * route answers with, whatever layer refuses it (a 408 from the HTTP layer too), follows it.
 */
describe('postback reasons against the reference', () => {
  it.each(Object.entries(POSTBACK_REASONS))('%s: retryable exactly when its status is 5xx', (_reason, { status, retryable }) => {
    expect(status >= 400 && status < 600).toBe(true);
    expect(retryable).toBe(status >= 500);
  });

  it('keeps the reference example of a rejection: 400 INVALID_PAYLOAD, not retryable', () => {
    expect(POSTBACK_REASONS.invalid_payload).toMatchObject({ status: 400, code: 'INVALID_PAYLOAD', retryable: false });
  });
});
