import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linkUrl, parseTrackedLink, shapeOfCode, type TrackedLinkRef } from '../../projections/offers/links/parse-link.js';

const BASE = 'https://go.example.test/l';
const UUID = '01939c5e-7b1a-7c3e-9f00-0123456789ab';

describe('parseTrackedLink', () => {
  it.each([
    [`${BASE}/Ab3dE6gH`, { shape: 'short_code', code: 'Ab3dE6gH' }],
    [`${BASE}/${UUID}`, { shape: 'instance_uuid', code: UUID }],
    // A UUID is read in either case (RFC 9562, 4): the same link, by its lowercase key. Short codes keep their case.
    [`${BASE}/${UUID.toUpperCase()}`, { shape: 'instance_uuid', code: UUID }],
    [`${BASE}/static/st_summer-sale_2025`, { shape: 'static_path', code: 'st_summer-sale_2025' }],
    // Query and fragment never change identity.
    [`${BASE}/Ab3dE6gH?sub_id=42&x=%20#frag`, { shape: 'short_code', code: 'Ab3dE6gH' }],
    [`${BASE}/static/st_a?utm=1#top`, { shape: 'static_path', code: 'st_a' }],
    // Scheme and host compare case-insensitively, the default port is the same origin.
    [`HTTPS://GO.EXAMPLE.TEST:443/l/Ab3dE6gH`, { shape: 'short_code', code: 'Ab3dE6gH' }],
    // An escaped unreserved character is that character (RFC 3986, 6.2.2.2), in the base's path too.
    [`${BASE}/Ab3d%456gH`, { shape: 'short_code', code: 'Ab3dE6gH' }],
    [`https://go.example.test/%6c/static/st%5Fa%2Db`, { shape: 'static_path', code: 'st_a-b' }],
  ])('reads %s', (url, link) => {
    expect(parseTrackedLink(url, BASE)).toEqual({ ok: true, link });
  });

  it.each([
    ['not a url', 'malformed_url'],
    ['/l/Ab3dE6gH', 'malformed_url'],
    ['', 'malformed_url'],
    ['http://go.example.test/l/Ab3dE6gH', 'other_origin'],
    ['https://go.example.test:8443/l/Ab3dE6gH', 'other_origin'],
    ['https://evil.example.test/l/Ab3dE6gH', 'other_origin'],
    ['https://user:pw@go.example.test/l/Ab3dE6gH', 'other_origin'],
    ['https://go.example.test/Ab3dE6gH', 'other_origin'],
    ['https://go.example.test/lx/Ab3dE6gH', 'other_origin'],
    [`${BASE}/Ab3dE6g`, 'unsupported_path'],
    [`${BASE}/Ab3dE6gHi`, 'unsupported_path'],
    [`${BASE}/Ab3dE6g-`, 'unsupported_path'],
    [`${BASE}/Ab3dE6gH/`, 'unsupported_path'],
    [`${BASE}/`, 'unsupported_path'],
    [`${BASE}/%7B${UUID}%7D`, 'unsupported_path'],
    [`${BASE}/static/st_`, 'unsupported_path'],
    [`${BASE}/static/xx_abc`, 'unsupported_path'],
    [`${BASE}/static/st_a/b`, 'unsupported_path'],
    [`${BASE}/static/st_a%2Fb`, 'unsupported_path'],
    [`${BASE}/a/Ab3dE6gH`, 'unsupported_path'],
  ])('rejects %s as %s', (url, reason) => {
    expect(parseTrackedLink(url, BASE)).toEqual({ ok: false, reason });
  });

  it('works with a link base at the root of its origin, with or without a trailing slash', () => {
    for (const base of ['https://lnk.example.test', 'https://lnk.example.test/']) {
      expect(parseTrackedLink('https://lnk.example.test/Ab3dE6gH', base)).toEqual({ ok: true, link: { shape: 'short_code', code: 'Ab3dE6gH' } });
      expect(parseTrackedLink('https://lnk.example.test/static/st_x', base)).toEqual({ ok: true, link: { shape: 'static_path', code: 'st_x' } });
    }
  });

  it('tolerates a trailing slash on a link base with a path', () => {
    expect(parseTrackedLink(`${BASE}/Ab3dE6gH`, `${BASE}/`)).toMatchObject({ ok: true });
  });
});

const alnum = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789');
const tokenChar = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-');
const link: fc.Arbitrary<TrackedLinkRef> = fc.oneof(
  fc.array(alnum, { minLength: 8, maxLength: 8 }).map((chars) => ({ shape: 'short_code' as const, code: chars.join('') })),
  fc.uuid().map((uuid) => ({ shape: 'instance_uuid' as const, code: uuid.toLowerCase() })),
  fc.array(tokenChar, { minLength: 1, maxLength: 40 }).map((chars) => ({ shape: 'static_path' as const, code: `st_${chars.join('')}` })),
);
const suffix = fc.tuple(fc.option(fc.webQueryParameters()), fc.option(fc.webFragments())).map(
  ([query, fragment]) => `${query === null ? '' : `?${query}`}${fragment === null ? '' : `#${fragment}`}`,
);

describe('parseTrackedLink properties', () => {
  it('reads back every link it can write, whatever query and fragment follow', () => {
    fc.assert(
      fc.property(link, suffix, (ref, tail) => {
        expect(parseTrackedLink(`${linkUrl(BASE, ref)}${tail}`, BASE)).toEqual({ ok: true, link: ref });
        expect(shapeOfCode(ref.code)).toBe(ref.shape);
      }),
    );
  });

  it('never throws, and anything it accepts is on the link base', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true })), (input) => {
        const parsed = parseTrackedLink(input, BASE);
        if (parsed.ok) expect(new URL(input).origin).toBe('https://go.example.test');
      }),
    );
  });
});
