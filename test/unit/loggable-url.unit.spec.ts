import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LOGGED_HOST_BYTES, LOGGED_URL_BYTES, loggableUrl, requestForLog } from '../../platform/http/loggable-url.js';

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

describe('an absolute-form request target', () => {
  it('keeps no user and password', () => {
    expect(loggableUrl('http://user:pa55@example.test/x?y=1')).toBe('http://[redacted]@example.test/x?y=1');
    expect(loggableUrl('HTTPS://:pa55@example.test')).toBe('HTTPS://[redacted]@example.test');
    // An @ after the path is no user's.
    expect(loggableUrl('/v1/postback/p?email=a@b.test')).toBe('/v1/postback/p?email=a@b.test');
  });
});

describe('requestForLog', () => {
  const line = (request: { url?: string; host?: string; ip?: string }) =>
    JSON.stringify(requestForLog(['adm-secret-0123456789-abcdef'])({ method: 'GET', url: '/x', host: 'h', ip: '127.0.0.1', ...request }));

  it('escapes the control and format characters of a Host header, read by Node as Latin-1 (0x9b: a terminal\'s CSI)', () => {
    const host = Buffer.from([0x61, 0x9b, 0x32, 0x4a, 0xe2, 0x80, 0xae, 0x62]).toString('latin1');
    const logged = requestForLog()({ method: 'GET', url: '/x', host });
    expect(logged.host).toBe('a\\u{9b}2Jâ\\u{80}®b');
    expect(line({ host: 'a\u202eb\u200bc' })).toContain('"host":"a\\\\u{202e}b\\\\u{200b}c"');
    expect(line({ ip: 'x\u009b31m' })).toContain('"remoteAddress":"x\\\\u{9b}31m"');
  });

  it('cuts a long URL and Host header, after the secrets are taken out of the URL', () => {
    const logged = requestForLog(['adm-secret-0123456789-abcdef'])({
      method: 'GET',
      url: `/${'a'.repeat(LOGGED_URL_BYTES - 40)}?token=adm-secret-0123456789-abcdef&q=${'b'.repeat(15_000)}`,
      host: 'h'.repeat(15_000),
    });
    expect(Buffer.byteLength(logged.url)).toBeLessThanOrEqual(LOGGED_URL_BYTES);
    expect(logged.url).toMatch(/\?token=\[redacted\]&q=b+…$/);
    expect(Buffer.byteLength(logged.host!)).toBeLessThanOrEqual(LOGGED_HOST_BYTES);
    expect(logged.host).toMatch(/^h+…$/);
  });

  it('keeps a usual request as it was', () => {
    expect(requestForLog()({ method: 'POST', url: '/v1/postback/p1?x=1', host: '127.0.0.1:8080', ip: '::1', socket: { remotePort: 5 } })).toEqual({
      method: 'POST', url: '/v1/postback/p1?x=1', host: '127.0.0.1:8080', remoteAddress: '::1', remotePort: 5,
    });
  });
});
