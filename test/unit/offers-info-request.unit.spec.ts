import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../platform/http/errors.js';
import { rawQueryOf } from '../../platform/http/form-pairs.js';
import { parseInfoQuery, submittedLink } from '../../services/api/routes/offers/info-request.js';

const BASE = 'https://go.example.test/l';
const UUID = '01939c5e-7b1a-7c3e-9f00-0123456789ab';
const enc = encodeURIComponent;

function rejection(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected a 400');
}

describe('parseInfoQuery', () => {
  it('reads offer_id in any case as the lowercase canonical id', () => {
    expect(parseInfoQuery(`offer_id=${UUID.toUpperCase()}`, BASE)).toEqual({ offer_id: UUID });
  });

  it('reads an encoded offerurl with its query and fragment exactly, and the link its path names', () => {
    const link = `${BASE}/Ab3dE6gH?sub_id1=a%20b&x=1+2#top`;
    expect(parseInfoQuery(`offerurl=${enc(link)}`, BASE)).toEqual({ link: { url: link, ref: { shape: 'short_code', code: 'Ab3dE6gH' } } });
  });

  it('reads both, in either order', () => {
    const link = `${BASE}/static/st_x`;
    const expected = { offer_id: UUID, link: { url: link, ref: { shape: 'static_path', code: 'st_x' } } };
    expect(parseInfoQuery(`offer_id=${UUID}&offerurl=${enc(link)}`, BASE)).toEqual(expected);
    expect(parseInfoQuery(`offerurl=${enc(link)}&offer_id=${UUID}`, BASE)).toEqual(expected);
  });

  it('takes an unencoded link without & or + as it is', () => {
    expect(parseInfoQuery(`offerurl=${BASE}/${UUID}?a=b`, BASE).link).toEqual({ url: `${BASE}/${UUID}?a=b`, ref: { shape: 'instance_uuid', code: UUID } });
  });

  it.each([
    ['no parameters', '', /offer_id.*offerurl/],
    ['only empty pairs', '&&', /offer_id.*offerurl/],
    ['an empty offer_id', 'offer_id=', /offer_id is empty/],
    ['offer_id without =', 'offer_id', /offer_id is empty/],
    ['an empty offerurl', 'offerurl=', /offerurl is empty/],
    ['an empty offerurl beside a valid offer_id', `offer_id=${UUID}&offerurl=`, /offerurl is empty/],
    ['a repeated offer_id', `offer_id=${UUID}&offer_id=${UUID}`, /more than once/],
    ['an unknown parameter', `offer_id=${UUID}&limit=2`, /unknown parameter "limit"/],
    ['an unencoded link whose own query has &', `offerurl=${BASE}/Ab3dE6gH?a=1&b=2`, /unknown parameter "b".*URL-encode/],
    ['bad percent-encoding', `offerurl=${enc(BASE)}%2FAb3dE6gH%ZZ`, /percent-encoding/],
    ['an upstream (non-UUID) offer id', 'offer_id=partner-offer-42', /offer_id must be a canonical offer id/],
    ['a UUID in braces', `offer_id=${enc(`{${UUID}}`)}`, /offer_id must be/],
    ['a UUID without hyphens', `offer_id=${UUID.replace(/-/g, '')}`, /offer_id must be/],
    ['a tracked link as offer_id', `offer_id=${enc(`${BASE}/Ab3dE6gH`)}`, /offer_id must be/],
    ['a UUID with spaces around it', `offer_id=+${UUID}+`, /offer_id must be/],
  ])('400 for %s', (_what, query, message) => {
    const error = rejection(() => parseInfoQuery(query, BASE));
    expect([error.statusCode, error.code]).toEqual([400, 'BAD_REQUEST']);
    expect(error.message).toMatch(message);
  });
});

describe('submittedLink', () => {
  it.each([
    [`${BASE}/Ab3dE6gH`, { shape: 'short_code', code: 'Ab3dE6gH' }],
    [`${BASE}/${UUID}?q=1#f`, { shape: 'instance_uuid', code: UUID }],
    // A UUID reads in either case: the same link.
    [`${BASE}/${UUID.toUpperCase()}`, { shape: 'instance_uuid', code: UUID }],
    [`${BASE}/static/st_summer-sale_2025?`, { shape: 'static_path', code: 'st_summer-sale_2025' }],
    ['HTTPS://GO.EXAMPLE.TEST:443/l/Ab3dE6gH', { shape: 'short_code', code: 'Ab3dE6gH' }],
    [`${BASE}/Ab3dE6gH#a/b?c`, { shape: 'short_code', code: 'Ab3dE6gH' }],
    // An escaped letter is that letter (RFC 3986, 6.2.2.2): the link origin opens this link too.
    [`${BASE}/Ab3dE6g%48`, { shape: 'short_code', code: 'Ab3dE6gH' }],
  ])('accepts %s', (url, ref) => {
    expect(submittedLink(url, BASE)).toEqual(ref);
  });

  it.each([
    ['a merchant destination', 'https://merchant.example/landing?x=1', /not a tracked link of this service/],
    ['another scheme of the link origin', 'http://go.example.test/l/Ab3dE6gH', /not a tracked link of this service/],
    ['another port', 'https://go.example.test:8443/l/Ab3dE6gH', /not a tracked link of this service/],
    ['credentials', 'https://u:p@go.example.test/l/Ab3dE6gH', /not a tracked link of this service/],
    ['a path outside the link base', 'https://go.example.test/x/Ab3dE6gH', /not a tracked link of this service/],
    ['a 7-character code', `${BASE}/Ab3dE6g`, /path no tracked link has/],
    ['a trailing slash', `${BASE}/Ab3dE6gH/`, /path no tracked link has/],
    ['an st_ token at the root', `${BASE}/st_abc`, /path no tracked link has/],
    ['a dot segment', `${BASE}/x/../Ab3dE6gH`, /path no tracked link has/],
    ['a dot segment spelled in escapes', `${BASE}/x/%2E%2E/Ab3dE6gH`, /path no tracked link has/],
    ['no scheme', 'go.example.test/l/Ab3dE6gH', /complete tracked link/],
    ['a relative path', '/l/Ab3dE6gH', /complete tracked link/],
    ['a scheme without //', 'https:go.example.test/l/Ab3dE6gH', /complete tracked link/],
    ['a space', `${BASE}/Ab3dE6gH?a=b c`, /not a valid URI/],
    ['a backslash', 'https://go.example.test\\l\\Ab3dE6gH', /not a valid URI/],
    ['non-ASCII text', `${BASE}/Ab3dE6gH?q=café`, /not a valid URI/],
    ['a bad percent-escape', `${BASE}/Ab3dE6gH?q=%zz`, /not a valid URI/],
    ['two fragments', `${BASE}/Ab3dE6gH#a#b`, /not a valid URI/],
  ])('400 for %s', (_what, url, message) => {
    const error = rejection(() => submittedLink(url, BASE));
    expect([error.statusCode, error.code]).toEqual([400, 'BAD_REQUEST']);
    expect(error.message).toMatch(message);
  });

  it('never throws anything but a 400, and keeps any query and fragment of a valid link (property)', () => {
    const alnum = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789');
    const code = fc.string({ unit: alnum, minLength: 8, maxLength: 8 });
    const tail = fc.tuple(fc.option(fc.string(), { nil: undefined }), fc.option(fc.string(), { nil: undefined }));
    fc.assert(
      fc.property(code, tail, (c, [query, fragment]) => {
        const url = `${BASE}/${c}${query === undefined ? '' : `?${enc(query)}`}${fragment === undefined ? '' : `#${enc(fragment)}`}`;
        expect(parseInfoQuery(`offerurl=${enc(url)}`, BASE).link).toEqual({ url, ref: { shape: 'short_code', code: c } });
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string(), (value) => {
        try {
          submittedLink(value, BASE);
        } catch (error) {
          expect((error as ApiError).statusCode).toBe(400);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('rawQueryOf', () => {
  it('is what follows the first ?', () => {
    expect(rawQueryOf('/v1/offers/info')).toBe('');
    expect(rawQueryOf('/v1/offers/info?offer_id=1?x')).toBe('offer_id=1?x');
  });
});
