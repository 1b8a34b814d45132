import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loggableUrl } from '../../platform/http/loggable-url.js';

describe('loggableUrl', () => {
  it.each([
    ['/admin/commands?token=adm-secret', '/admin/commands?token=[redacted]'],
    ['/admin/postbacks?partner_id=p1&access_token=s3cr3t&decision=accepted', '/admin/postbacks?partner_id=p1&access_token=[redacted]&decision=accepted'],
    ['/v1/offers/info?offer_id=x&api_key=svc_live_abc', '/v1/offers/info?offer_id=x&api_key=[redacted]'],
    ['/x?API%5FKEY=abc', '/x?API%5FKEY=[redacted]'],
    ['/x?Authorization=Bearer%20abc', '/x?Authorization=[redacted]'],
  ])('%s is logged as %s', (url, logged) => {
    expect(loggableUrl(url)).toBe(logged);
  });

  it.each(['/v1/locations/search?q=bava&limit=2', '/v1/postback/p?click_id={click_id}&amount=1.5', '/l/Ab12Cd34?sub_id1=x&', '/plain', '/x?%zz=1&token'])(
    'leaves %s as sent',
    (url) => {
      expect(loggableUrl(url)).toBe(url);
    },
  );

  it('drops a known secret wherever it is in the URL, as sent or percent-encoded', () => {
    const secret = 'adm/secret+token value';
    expect(loggableUrl(`/admin/postbacks/${secret}`, [secret])).toBe('/admin/postbacks/[redacted]');
    expect(loggableUrl(`/admin/login?next=/admin/postbacks?q=${encodeURIComponent(secret)}`, [secret])).toBe('/admin/login?next=/admin/postbacks?q=[redacted]');
    // However it is spelled: a letter escaped (any hex case), a space as +.
    expect(loggableUrl('/v1/locations/2250?x=%61dm%2fsecret%2Btoken+value&y=1', [secret])).toBe('/v1/locations/2250?x=[redacted]&y=1');
  });

  it('keeps every byte of a URL without a secret, escapes included', () => {
    fc.assert(fc.property(fc.webPath(), fc.webQueryParameters(), (path, query) => {
      fc.pre(!/token|key|secret|passw|auth|bearer|signature|credential|svc_/i.test(query));
      expect(loggableUrl(`${path}?${query}`, ['a-configured-secret-0123456789'])).toBe(`${path}?${query}`);
    }));
  });

  it('never lets a secret-named parameter value through, and keeps every other byte', () => {
    fc.assert(
      fc.property(fc.webPath(), fc.string({ minLength: 1 }).filter((value) => !/[&#]/.test(value)), (path, secret) => {
        const url = `${path}?a=1&admin_token=${encodeURIComponent(secret)}&b=2`;
        const logged = loggableUrl(url);
        expect(logged).toBe(`${path}?a=1&admin_token=[redacted]&b=2`);
      }),
    );
  });
});

describe('an API key in any parameter', () => {
  it('is redacted whatever the parameter is called, as is a bearer parameter', () => {
    expect(loggableUrl('/v1/locations/search?q=svc_live_abc123&limit=2')).toBe('/v1/locations/search?q=[redacted]&limit=2');
    expect(loggableUrl('/v1/offers/info?bearer=xyz&offer_id=1')).toBe('/v1/offers/info?bearer=[redacted]&offer_id=1');
    expect(loggableUrl('/v1/locations/search?q=munich')).toBe('/v1/locations/search?q=munich');
    // In a path segment too.
    expect(loggableUrl('/v1/locations/svc_live_aJIL0-x_9?catalog=FULL')).toBe('/v1/locations/[redacted]?catalog=FULL');
  });
});
