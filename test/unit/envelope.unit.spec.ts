import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failure } from '../../platform/http/envelope.js';

describe('failure envelopes', () => {
  it.each([
    ['got "2250\u200b"', 'got "2250\\u200b"'],
    ['name \u202eevil\u202c', 'name \\u202eevil\\u202c'],
    ['line\nbreak\u0000', 'line\\u000abreak\\u0000'],
    ['München, 東京, 👨‍👩‍👧', 'München, 東京, 👨\\u200d👩\\u200d👧'],
  ])('message %j is written %j', (message, shown) => {
    expect(failure('BAD_REQUEST', message)).toEqual({ code: 'BAD_REQUEST', message: shown, data: {}, extra: {} });
  });

  // Messages without a backslash of their own: every \u in the message shown is then an escape.
  it('leaves no control or format character in a message, and changes nothing else', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }).filter((text) => !text.includes('\\')), (message) => {
        const shown = failure('X', message).message;
        expect(shown).not.toMatch(/[\p{Cc}\p{Cf}]/u);
        expect(shown.replace(/\\u[0-9a-f]{4,6}/g, '')).toBe(message.replace(/[\p{Cc}\p{Cf}]/gu, ''));
      }),
    );
  });
});
