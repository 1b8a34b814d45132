import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { html } from '../../platform/http/html.js';
import { returnPath } from '../../services/api/routes/admin/login.js';
import { timeText } from '../../services/api/routes/admin/postbacks/cells.js';
import { undecodableParameters } from '../../platform/http/form-pairs.js';
import { datetimeLocalValue, parseInstant, parseSearch, SEARCH_FIELDS } from '../../services/api/routes/admin/postbacks/search-params.js';
import { SESSION_SECONDS, adminSessions } from '../../services/api/routes/admin/session.js';

const ID = '0193b2c4-5d6e-7f80-9a1b-2c3d4e5f6a7b';

describe('html', () => {
  it('escapes every interpolated value, but not markup it built itself', () => {
    const value = `"><script>alert('x')</script>&`;
    const inner = html`<b>${value}</b>`;
    expect(html`<a title="${value}">${inner}${[value, 1, null, undefined]}</a>`.text).toBe(
      '<a title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"><b>&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</b>&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;1</a>',
    );
  });
});

describe('timeText', () => {
  it('prints a stored time to the millisecond, as exports and refusals do, unless it has finer digits', () => {
    expect(timeText('2026-11-29T12:11:22.743000Z')).toBe('2026-11-29T12:11:22.743Z');
    expect(timeText('2026-11-29T12:11:22.743219Z')).toBe('2026-11-29T12:11:22.743219Z');
  });
});

describe('undecodableParameters', () => {
  it('names the search fields whose percent-encoded value is not UTF-8, and no other', () => {
    expect(undecodableParameters('identity=%ff%fe&partner_id=%E2%82%AC&click_id=50%off&other=%ff', SEARCH_FIELDS)).toEqual(['identity']);
    expect(undecodableParameters('identity=caf%C3%A9&decision=accepted&from', SEARCH_FIELDS)).toEqual([]);
    // A name spelled with escapes is the same name.
    expect(undecodableParameters('%69dentity=caf%E9', SEARCH_FIELDS)).toEqual(['identity']);
  });

  it('makes the search fail naming the field', () => {
    const { search, errors } = parseSearch({ identity: '\uFFFD\uFFFD' }, ['identity']);
    expect(search).toBeUndefined();
    expect(errors).toEqual([{ field: 'identity', message: expect.stringMatching(/not UTF-8 once percent-decoded/) }]);
  });
});

describe('datetimeLocalValue', () => {
  it.each([
    ['', ''],
    ['2026-11-23T14:05', '2026-11-23T14:05:00'],
    ['2026-11-29T14:03:23.892+02:00', '2026-11-29T12:03:23.892'],
    ['2026-11-29T12:03:23Z', '2026-11-29T12:03:23'],
    ['2026-11-29T12:03:23.8921Z', undefined],
    ['yesterday', undefined],
  ])('%s → %s', (text, expected) => {
    expect(datetimeLocalValue(text)).toBe(expected);
  });
});

describe('parseInstant', () => {
  it('reads the form (UTC) and RFC 3339', () => {
    expect(parseInstant('2026-11-23T14:05')).toBe('2026-11-23T14:05:00.000000Z');
    expect(parseInstant('2026-11-23T14:05:07')).toBe('2026-11-23T14:05:07.000000Z');
    expect(parseInstant('2026-11-23T14:05:07.123456Z')).toBe('2026-11-23T14:05:07.123456Z');
    expect(parseInstant('2026-11-23T14:05:07.1234567Z')).toBe('2026-11-23T14:05:07.123456Z');
    expect(parseInstant('2026-11-23T14:05:00+01:30')).toBe('2026-11-23T12:35:00.000000Z');
    // The same typed into an address bar, where `+` reads as a space.
    expect(parseInstant('2026-11-23T14:05:00 01:30')).toBe('2026-11-23T12:35:00.000000Z');
    expect(parseInstant(new URLSearchParams('from=2026-11-23T14:05:00+02:00').get('from')!)).toBe('2026-11-23T12:05:00.000000Z');
    expect(parseInstant('2026-11-23T14:05:00 1:30')).toBeUndefined();
    expect(parseInstant('0050-01-01T00:00')).toBe('0050-01-01T00:00:00.000000Z');
  });

  it('reads a space between the date and a time without seconds as the separator, and an offset after it as one whose + became a space', () => {
    expect(parseInstant('2026-11-23 14:05')).toBe('2026-11-23T14:05:00.000000Z');
    expect(parseInstant('2026-11-23 14:05 01:00')).toBe('2026-11-23T13:05:00.000000Z');
    const twoDigits = (value: number) => String(value).padStart(2, '0');
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('0002-01-01T00:00:00Z'), max: Date.parse('9998-12-31T23:59:00Z') }),
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        fc.constantFrom('T', 't', ' '),
        fc.boolean(),
        (ms, offsetMinutes, separator, withSeconds) => {
          const minute = Math.floor(ms / 60_000) * 60_000;
          const local = new Date(minute + offsetMinutes * 60_000).toISOString();
          const zone = `${offsetMinutes < 0 ? '-' : '+'}${twoDigits(Math.floor(Math.abs(offsetMinutes) / 60))}:${twoDigits(Math.abs(offsetMinutes) % 60)}`;
          const text = `${local.slice(0, 10)}${separator}${local.slice(11, withSeconds ? 19 : 16)}${zone}`;
          const expected = new Date(minute).toISOString().replace(/Z$/, '000Z');
          expect(parseInstant(text), text).toBe(expected);
          expect(parseInstant(new URLSearchParams(`from=${text}`).get('from')!), `${text} in a URL`).toBe(expected);
          if (offsetMinutes === 0) expect(parseInstant(text.slice(0, -6)), `${text} without its zone`).toBe(expected);
        },
      ),
    );
  });

  it('refuses what is not a time', () => {
    for (const text of ['yesterday', '2026-02-30T00:00', '2026-13-01T00:00', '2026-11-23T24:00', '2026-11-23', '2026-11-23T10:00+25:00', '9999-12-31T23:59-01:00', '0001-01-01T00:00+00:01', '']) {
      expect(parseInstant(text), text).toBeUndefined();
    }
  });
});

describe('parseSearch', () => {
  it('takes every key, ids trimmed and in lowercase', () => {
    const { search, errors } = parseSearch({
      correlation_id: ` ${ID.toUpperCase()} `, partner_id: ID, identity: 'A-1001', identity_kind: 'order_id', click_id: ID, instance_id: ID,
      from: '2026-11-01T00:00', to: '2026-11-02T00:00', decision: 'identity_conflict', limit: '20',
    });
    expect(errors).toEqual([]);
    expect(search).toEqual({
      filter: {
        correlation_id: ID, partner_id: ID, identity: 'A-1001', identity_kind: 'order_id', click_id: ID, instance_id: ID,
        from: '2026-11-01T00:00:00.000000Z', to: '2026-11-02T00:00:00.000000Z', decision: 'identity_conflict',
      },
      refused: false,
      page: { limit: 20 },
    });
  });

  it('treats empty fields as absent', () => {
    expect(parseSearch({ correlation_id: '', decision: '', limit: '', identity_kind: '' }).search).toEqual({ filter: {}, refused: false, page: { limit: 50 } });
  });

  it('names every field that is wrong', () => {
    const { search, errors, form } = parseSearch({
      correlation_id: 'nope', partner_id: '{uuid}', click_id: '123', instance_id: ID.slice(1), from: 'yesterday', to: '2026-02-30T10:00',
      decision: 'maybe', limit: '0', identity_kind: 'email', after: 'x', identity: 'a\u0000b',
    });
    expect(search).toBeUndefined();
    expect(errors.map((error) => error.field).sort()).toEqual(
      ['after', 'click_id', 'correlation_id', 'decision', 'from', 'identity', 'identity_kind', 'instance_id', 'limit', 'partner_id', 'to'].sort(),
    );
    expect(form.correlation_id).toBe('nope');
  });

  it('refuses a range that ends before it starts, repeated fields, and two cursors', () => {
    expect(parseSearch({ from: '2026-11-02T00:00', to: '2026-11-01T00:00' }).errors).toEqual([{ field: 'to', message: 'must be later than from' }]);
    // Characters, as the postback route counts them: 200 emoji are 400 UTF-16 units.
    expect(parseSearch({ identity: '😀'.repeat(200) }).errors).toEqual([]);
    expect(parseSearch({ identity: '😀'.repeat(201) }).errors.map((error) => error.field)).toEqual(['identity']);
    // Rows are kept to the microsecond: so are the bounds.
    expect(parseSearch({ from: '2026-11-01T00:00:00.749Z', to: '2026-11-01T00:00:00.7491Z' }).errors).toEqual([]);
    expect(parseSearch({ partner_id: [ID, ID] }).errors[0]).toMatchObject({ field: 'partner_id', message: 'given more than once' });
    const cursor = `2026-11-01T00:00:00.000000Z~${ID}`;
    expect(parseSearch({ after: cursor }).search?.page).toEqual({ limit: 50, after: cursor });
    expect(parseSearch({ after: cursor, before: cursor }).errors.map((error) => error.field)).toEqual(['before']);
    // The refusals listing pages by entry id, not by the log's cursor.
    expect(parseSearch({ decision: 'refused', after: cursor }).errors.map((error) => error.field)).toEqual(['after']);
    expect(parseSearch({ decision: 'refused', after: '1732000000000-0' }).search).toMatchObject({ refused: true, page: { after: '1732000000000-0' } });
  });
});

describe('admin sessions', () => {
  const TOKEN = 'a-token-of-at-least-24-characters';
  const request = (cookie?: string, protocol: 'http' | 'https' = 'http') => ({ headers: cookie ? { cookie } : {}, protocol }) as unknown as FastifyRequest;
  const valueOf = (setCookie: string) => setCookie.split(';')[0]!;

  it('signs a session without the token in it, HttpOnly, SameSite=Strict, Secure over https', async () => {
    const now = Date.UTC(2026, 10, 23);
    const sessions = adminSessions(TOKEN, () => now);
    const cookie = await sessions.open(request());
    expect(cookie).not.toContain(TOKEN);
    expect(cookie).toMatch(/^admin_session=v2\.\d+\.[0-9a-f]{64}; Max-Age=28800; Path=\/admin; HttpOnly; SameSite=Strict$/);
    expect(await sessions.open(request(undefined, 'https'))).toContain('; Secure');
    expect(await sessions.valid(request(valueOf(cookie)))).toBe(true);
  });

  it('keys its MAC by a scrypt of the token, not the token: a copied cookie is no cheap test of token guesses', async () => {
    const now = Date.UTC(2026, 10, 23);
    const [, expires, mac] = valueOf(await adminSessions(TOKEN, () => now).open(request())).split('=')[1]!.split('.');
    const keyedByToken = (version: string) => createHmac('sha256', TOKEN).update(`admin-session.${version}.${expires}`).digest('hex');
    expect(mac).not.toBe(keyedByToken('v2'));
    // A session signed the earlier way is not taken either.
    expect(await adminSessions(TOKEN, () => now).valid(request(`admin_session=v1.${expires}.${keyedByToken('v1')}`))).toBe(false);
  });

  it('refuses an expired, altered or foreign session', async () => {
    let now = Date.UTC(2026, 10, 23);
    const sessions = adminSessions(TOKEN, () => now);
    const cookie = valueOf(await sessions.open(request()));
    const other = valueOf(await adminSessions(`${TOKEN}-rotated`, () => now).open(request()));
    expect(await sessions.valid(request(other))).toBe(false);
    expect(await sessions.valid(request(cookie.replace(/.$/, (last) => (last === '0' ? '1' : '0'))))).toBe(false);
    expect(await sessions.valid(request(cookie.replace(/v2\.(\d+)/, (_all, expires: string) => `v2.${Number(expires) + 1}`)))).toBe(false);
    expect(await sessions.valid(request('admin_session=garbage'))).toBe(false);
    expect(await sessions.valid(request())).toBe(false);
    now += SESSION_SECONDS * 1000;
    expect(await sessions.valid(request(cookie))).toBe(false);
  });
});

describe('returnPath', () => {
  it('returns to an admin page of this origin only', () => {
    expect(returnPath('/admin/postbacks?partner_id=x')).toBe('/admin/postbacks?partner_id=x');
    expect(returnPath(`/admin/postbacks/${ID}`)).toBe(`/admin/postbacks/${ID}`);
    for (const next of ['//evil.example/admin/postbacks', 'https://evil.example', '/admin/postbacksevil', '/\\evil', undefined, 3]) expect(returnPath(next)).toBe('/admin/postbacks');

  });

  it('returns to no path with a dot segment, which the browser would resolve out of the admin pages', () => {
    for (const next of ['/admin/postbacks/../../l/AbCd1234', '/admin/postbacks/%2e%2e/%2E%2E/l/AbCd1234', '/admin/postbacks/.%2e/..', '/admin/postbacks/./x', '/admin/postbacks/..?x=1']) {
      expect(returnPath(next)).toBe('/admin/postbacks');
    }
    // Dots elsewhere are ordinary text: in a segment, or in the query string (which no browser resolves).
    expect(returnPath('/admin/postbacks/a..b')).toBe('/admin/postbacks/a..b');
    expect(returnPath('/admin/postbacks?identity=../x')).toBe('/admin/postbacks?identity=../x');
  });

  it('returns to nothing a Location header cannot carry: a control or non-ASCII character sends the sign-in home', () => {
    // These made the sign-in's redirect throw inside Node (a 500 in the framework's own shape).
    for (const next of ['/admin/postbacks?x=\u0001', '/admin/postbacks?x=\u007f', '/admin/postbacks?x=\u0000', '/admin/postbacks?x=\u0101', '/admin/postbacks/\\x']) {
      expect(returnPath(next)).toBe('/admin/postbacks');
    }
  });
});

describe('html', () => {
  it('writes characters that hide or reorder text as escapes, after escaping markup', () => {
    expect(html`<td>${'ORDER-\u202e9999-\u202c1'}</td>`.text).toBe('<td>ORDER-\\u{202e}9999-\\u{202c}1</td>');
    expect(html`<td>${'a<b>\u0000\n'}</td>`.text).toBe('<td>a&lt;b&gt;\\u{0}\\n</td>');
    expect(html`<td>${'Zürich 東京'}</td>`.text).toBe('<td>Zürich 東京</td>');
  });
});
