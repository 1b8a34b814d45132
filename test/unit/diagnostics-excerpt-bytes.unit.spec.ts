import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8OrEscapedBytes } from '../../platform/diagnostics/excerpt.js';

describe('utf8OrEscapedBytes', () => {
  it('shows each byte that is not UTF-8 as itself, where decoding would give U+FFFD', () => {
    const body = Buffer.concat([Buffer.from('{"order_id":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    expect(utf8OrEscapedBytes(body)).toBe('{"order_id":"caf\\x{e9}"}');
    // An encoded surrogate, an overlong slash and a sequence cut short are not UTF-8 either.
    expect(utf8OrEscapedBytes(Buffer.from([0xed, 0xa0, 0x80, 0x2f, 0xc0, 0xaf, 0xe2, 0x82]))).toBe('\\x{ed}\\x{a0}\\x{80}/\\x{c0}\\x{af}\\x{e2}\\x{82}');
  });

  it('decodes well-formed UTF-8 as it is, and never makes a replacement character of its own', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(utf8OrEscapedBytes(Buffer.from(text, 'utf8'))).toBe(text);
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const shown = utf8OrEscapedBytes(bytes);
        const sentReplacements = Buffer.from(bytes).toString('latin1').split('\xef\xbf\xbd').length - 1;
        expect(shown.split('\ufffd').length - 1).toBe(sentReplacements);
        // What is not escaped is the bytes' own text: removing the escapes leaves only well-formed UTF-8 of them.
        expect(Buffer.from(shown.replace(/\\x\{[0-9a-f]{1,2}\}/g, ''), 'utf8').length).toBeLessThanOrEqual(bytes.length);
      }),
    );
  });
});
