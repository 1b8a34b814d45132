import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PostbackRejection } from '../../commands/postbacks/rejections.js';
import { paramsOf } from '../../services/api/routes/postbacks/channel.js';

/** What URLSearchParams reads, in paramsOf's shape: a repeated name as its list of values. */
function asUrlSearchParams(text: string) {
  const params: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(text)) {
    const earlier = params[name];
    params[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
  }
  return params;
}

const pairs = fc.array(fc.tuple(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' })), { maxLength: 6 });

describe('paramsOf (compatibility routes)', () => {
  it('reads any UTF-8 query or form text as URLSearchParams does', () => {
    fc.assert(
      fc.property(pairs, (entries) => {
        const text = new URLSearchParams(entries).toString();
        expect(paramsOf(text)).toEqual(asUrlSearchParams(text));
        // A form body arrives as bytes.
        expect(paramsOf(Buffer.from(text))).toEqual(asUrlSearchParams(text));
      }),
    );
  });

  it('reads escapes that are not percent-encoding, and raw UTF-8 bytes, as URLSearchParams does', () => {
    for (const text of ['a=50%off', 'a=%', 'a=%2', 'a=%zz&b', '=x&&a==1', 'a+b=c+d']) expect(paramsOf(text)).toEqual(asUrlSearchParams(text));
    expect({ ...paramsOf(Buffer.from('order_id=é注', 'utf8')) }).toEqual({ order_id: 'é注' });
  });

  it('refuses, naming the parameter, bytes that are not UTF-8 where URLSearchParams made them U+FFFD', () => {
    fc.assert(
      fc.property(fc.constantFrom('%FF', '%FE', '%C0%AF', '%E2%82', '%ED%A0%80'), fc.string({ unit: 'grapheme-ascii' }).map(encodeURIComponent), (bad, around) => {
        expect(() => paramsOf(`order_id=${around}${bad}`)).toThrow(PostbackRejection);
        expect(() => paramsOf(`order_id=${around}${bad}`)).toThrow(/^order_id: is not UTF-8/);
        expect(new URLSearchParams(`order_id=${around}${bad}`).get('order_id')).toContain('\uFFFD');
      }),
    );
    expect(() => paramsOf(Buffer.from([0x61, 0x3d, 0xe9]))).toThrow(/^a: is not UTF-8/);
  });
});
