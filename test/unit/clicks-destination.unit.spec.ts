import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLICK_MACROS, clickRedirectUrl, isRedirectable, type ClickMacro, type MacroValues } from '../../commands/clicks/destination.js';

const CLICK = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';
const INSTANCE = '0193a0b4-0000-7000-8000-000000000001';

describe('clickRedirectUrl', () => {
  const values: MacroValues = { svc_click_id: CLICK, offer_instance_id: INSTANCE, sub_id1: 'a b&c=d/é', sub_id3: '42' };

  it.each([
    // Macros in path, query and fragment; values URL-encoded; absent ones empty.
    [
      'https://shop.example/p/{offer_instance_id}?click={svc_click_id}&s1={sub_id1}&s2={sub_id2}#s3={sub_id3}',
      `https://shop.example/p/${INSTANCE}?click=${CLICK}&s1=a%20b%26c%3Dd%2F%C3%A9&s2=#s3=42`,
    ],
    // Percent-encoded macros (hex in either case), as URL tools store them.
    [`https://shop.example/p?c=%7Bsvc_click_id%7D&s=%7bsub_id3%7d`, `https://shop.example/p?c=${CLICK}&s=42`],
    // No click id macro: appended, respecting the query and the fragment.
    ['https://shop.example/p', `https://shop.example/p?svc_click_id=${CLICK}`],
    ['https://shop.example/p?x=1', `https://shop.example/p?x=1&svc_click_id=${CLICK}`],
    ['https://shop.example/p?x=1#top', `https://shop.example/p?x=1&svc_click_id=${CLICK}#top`],
    ['https://shop.example/p?', `https://shop.example/p?svc_click_id=${CLICK}`],
    ['https://shop.example/p?x=1&', `https://shop.example/p?x=1&svc_click_id=${CLICK}`],
    ['https://shop.example/p??', `https://shop.example/p??&svc_click_id=${CLICK}`],
    ['https://shop.example/#/route?x=1', `https://shop.example/?svc_click_id=${CLICK}#/route?x=1`],
    // An svc_click_id the destination already holds is replaced, never sent beside the click's.
    ['https://shop.example/p?svc_click_id=abc', `https://shop.example/p?svc_click_id=${CLICK}`],
    ['https://shop.example/p?svc_click_id=abc&x=1', `https://shop.example/p?x=1&svc_click_id=${CLICK}`],
    ['https://shop.example/p?svc_click_id&svc_click_id=b#f', `https://shop.example/p?svc_click_id=${CLICK}#f`],
    ['https://shop.example/p?my_svc_click_id=1&svc_click_idx=2', `https://shop.example/p?my_svc_click_id=1&svc_click_idx=2&svc_click_id=${CLICK}`],
    // A host written in Unicode goes out in its ASCII form, the host a browser goes to.
    ['https://bücher.example/x', `https://xn--bcher-kva.example/x?svc_click_id=${CLICK}`],
    ['HTTPS://Bücher.example:8443/ü', `HTTPS://xn--bcher-kva.example:8443/%C3%BC?svc_click_id=${CLICK}`],
    // Other macros without the click id macro: substituted, and the click id still delivered.
    ['https://shop.example/p?s={sub_id3}', `https://shop.example/p?s=42&svc_click_id=${CLICK}`],
    // App deep links are handled alike.
    ['myapp://offer/7?c={svc_click_id}', `myapp://offer/7?c=${CLICK}`],
    ['myapp://offer/7', `myapp://offer/7?svc_click_id=${CLICK}`],
    ['market:details?id=com.example', `market:details?id=com.example&svc_click_id=${CLICK}`],
    // Scheme and authority are never substituted (a value there could break the host).
    ['https://{sub_id1}.shop.example/p', `https://%7Bsub_id1%7D.shop.example/p?svc_click_id=${CLICK}`],
    // Unknown macros and characters a URL may not contain literally are percent-encoded.
    ['https://shop.example/café/{unknown}', `https://shop.example/caf%C3%A9/%7Bunknown%7D?svc_click_id=${CLICK}`],
    // A macro name is case-sensitive.
    ['https://shop.example/p?c={SVC_CLICK_ID}', `https://shop.example/p?c=%7BSVC_CLICK_ID%7D&svc_click_id=${CLICK}`],
  ])('%s', (destination, expected) => {
    expect(clickRedirectUrl(destination, values)).toBe(expected);
  });

  it('substitutes every occurrence, and a value that looks like a macro only once', () => {
    const url = clickRedirectUrl('https://s.example/{sub_id1}/{sub_id1}?c={svc_click_id}', { svc_click_id: CLICK, sub_id1: '{sub_id1}' });
    expect(url).toBe(`https://s.example/%7Bsub_id1%7D/%7Bsub_id1%7D?c=${CLICK}`);
  });

  it('never throws on a value with a lone surrogate', () => {
    expect(clickRedirectUrl('https://s.example/?s={sub_id1}', { svc_click_id: CLICK, sub_id1: 'a\uD800b' })).toBe(
      `https://s.example/?s=a%EF%BF%BDb&svc_click_id=${CLICK}`,
    );
  });
});

describe('isRedirectable', () => {
  it.each([
    ['https://shop.example/p', true],
    ['http://shop.example', true],
    ['myapp://offer/7', true],
    ['intent://scan/#Intent;scheme=zxing;end', true],
    ['javascript:alert(1)', false],
    ['JavaScript:alert(1)', false],
    ['data:text/html,<p>x</p>', false],
    ['vbscript:msgbox', false],
    ['file:///etc/passwd', false],
    ['blob:https://shop.example/1', false],
    ['view-source:https://evil.example', false],
    ['search-ms:query=x&crumb=location:\\\\evil.example\\share', false],
    ['filesystem:https://x/y', false],
    ['jar:https://x/y.jar!/', false],
    ['ms-msdt:/id', false],
    ['shop.example/p', false],
    ['https:shop.example/p', false],
    ['https:/shop.example/p', false],
    ['HTTPS:///p', false],
    ['HTTPS://SHOP.EXAMPLE/p', true],
    // A browser reads \ as /, the redirect writes it %5C: the two would go to different hosts.
    ['https://shop.example\\@evil.example/landing', false],
    ['https://shop.example/a\\b', false],
    // Credentials before the host: a reader takes the wrong part for the host.
    ['https://shop.example@evil.example/', false],
    ['https://user:pw@shop.example/', false],
    ['https://shop.example/p?to=a@b.example', true],
    ['', false],
    [null, false],
  ])('%s → %s', (destination, expected) => {
    expect(isRedirectable(destination)).toBe(expected);
  });
});

// Properties over generated destinations.
const macro = fc.constantFrom(...CLICK_MACROS);
const macroForm = fc.tuple(macro, fc.constantFrom('braced', 'encoded', 'encoded-lower')).map(([name, form]) => ({
  name,
  text: form === 'braced' ? `{${name}}` : form === 'encoded' ? `%7B${name}%7D` : `%7b${name}%7d`,
}));
const subValue = fc.option(fc.string({ unit: 'binary', maxLength: 30 }), { nil: undefined });
const macroValues = fc.record({
  svc_click_id: fc.uuid({ version: 7 }),
  offer_instance_id: fc.option(fc.uuid({ version: 7 }), { nil: null }),
  sub_id1: subValue,
  sub_id2: subValue,
  sub_id3: subValue,
  sub_id4: subValue,
  sub_id5: subValue,
});
const MACRO_TEXT = /\{(svc_click_id|offer_instance_id|sub_id[1-5])\}|%7B(svc_click_id|offer_instance_id|sub_id[1-5])%7D/i;
const webUrl = fc.webUrl({ withQueryParameters: true, withFragments: true }).filter((url) => !MACRO_TEXT.test(url));
const valueOf = (values: MacroValues, name: ClickMacro) => values[name] ?? '';

/** Splits a URL into scheme + authority and the rest (path, query, fragment), which starts with `/`, `?` or `#`. */
function splitAuthority(url: string) {
  const origin = /^[a-z]+:\/\/[^/?#]*/.exec(url)![0];
  const rest = url.slice(origin.length);
  return [origin, /^[/?#]/.test(rest) ? rest : `/${rest}`] as const;
}

describe('the host a redirect goes to', () => {
  it('is the host a browser reads in the destination, whatever characters its authority holds', () => {
    const character = fc.constantFrom('a', 'b', '.', '-', '@', ':', '/', '\\', '%', '5', 'C', '?', '#', '[', ']', '!', 'ü', 'É');
    fc.assert(
      fc.property(fc.array(character, { minLength: 1, maxLength: 24 }).map((chars) => `https://${chars.join('')}`), macroValues, (destination, values) => {
        fc.pre(isRedirectable(destination) && URL.canParse(destination));
        const redirect = clickRedirectUrl(destination, values);
        expect(new URL(redirect).host).toBe(new URL(destination).host);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('macro substitution properties', () => {
  it('from a valid URL with macros anywhere after the authority: a valid URL, same origin, every macro replaced by its encoded value', () => {
    fc.assert(
      fc.property(webUrl, fc.array(fc.tuple(fc.nat(), macroForm), { maxLength: 8 }), macroValues, (url, insertions, values) => {
        const [origin, rest] = splitAuthority(url);
        // Macros inserted after the rest's first character (still the authority before it); the model result beside it.
        const cuts = insertions.map(([at, form]) => ({ at: 1 + (at % rest.length), form })).sort((a, b) => a.at - b.at);
        let destination = origin;
        let expected = origin;
        let previous = 0;
        for (const { at, form } of cuts) {
          destination += rest.slice(previous, at) + form.text;
          expected += rest.slice(previous, at) + encodeURIComponent(valueOf(values, form.name));
          previous = at;
        }
        destination += rest.slice(previous);
        expected += rest.slice(previous);
        fc.pre(URL.canParse(destination));
        const result = clickRedirectUrl(destination, values);
        expect(URL.canParse(result)).toBe(true);
        expect(new URL(result).origin).toBe(new URL(destination).origin);
        if (cuts.some(({ form }) => form.name === 'svc_click_id')) {
          expect(result).toBe(expected);
        } else {
          const hash = expected.indexOf('#');
          const head = hash < 0 ? expected : expected.slice(0, hash);
          expect(result.startsWith(head)).toBe(true);
          expect(result.endsWith(hash < 0 ? '' : expected.slice(hash))).toBe(true);
          expect(new URL(result).searchParams.getAll('svc_click_id')).toContain(values.svc_click_id);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('values round-trip: each macro used as a query value decodes back to its value; the fragment is kept', () => {
    const base = fc.oneof(fc.webUrl(), fc.constantFrom('myapp://offer/open', 'com.example.app://deals/7', 'market://details'));
    const fragment = fc.option(fc.webFragments(), { nil: undefined });
    fc.assert(
      fc.property(base, fc.array(macroForm, { minLength: 1, maxLength: 7 }), fragment, macroValues, (url, forms, hash, values) => {
        const query = forms.map((form, index) => `m${index}=${form.text}`).join('&');
        const destination = `${url}?${query}${hash === undefined ? '' : `#${hash}`}`;
        const result = new URL(clickRedirectUrl(destination, values));
        forms.forEach((form, index) => {
          const value = valueOf(values, form.name);
          expect(result.searchParams.get(`m${index}`)).toBe(value);
        });
        const clickIds = result.searchParams.getAll('svc_click_id');
        expect(clickIds).toEqual(forms.some((form) => form.name === 'svc_click_id') ? [] : [values.svc_click_id]);
        expect(result.hash).toBe(new URL(destination).hash);
      }),
      { numRuns: 500 },
    );
  });
});
