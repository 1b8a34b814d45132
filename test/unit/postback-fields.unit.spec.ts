import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCompatParams, parseCurrentBody, type FieldsResult, type PostbackFields } from '../../commands/postbacks/fields.js';
import { postbackFingerprint, postbackIdentity } from '../../commands/postbacks/identity.js';
import { currency, decimalText, printable, trackingId, validFields, withoutTrailingZeros } from '../support/postback-arbitraries.js';

const CLICK = '0190a6e0-ef9a-70ea-a6c7-41aaa878f145';
const INSTANCE = '0190a6e0-ef9a-70ea-a6c7-41aaa878f146';
const BASE = { event_name: 'purchase', svc_click_id: CLICK, order_id: 'o-1' };
const KNOWN = ['event_name', 'svc_click_id', 'svc_tracking_id', 'offer_instance_id', 'event_id', 'order_id', 'partner_txn_id', 'amount', 'currency'];
const ATTRIBUTION = ['svc_click_id', 'svc_tracking_id', 'offer_instance_id'] as const;
const IDENTITY = ['event_id', 'order_id', 'partner_txn_id'] as const;

const body = (value: unknown) => parseCurrentBody(JSON.stringify(value));
/** The parsed fields the generated ones should come back as: amount without trailing zeros. */
const normalised = (fields: PostbackFields): PostbackFields => (fields.amount === undefined ? fields : { ...fields, amount: withoutTrailingZeros(fields.amount) });

describe('parseCurrentBody: accepted bodies', () => {
  it('reads a minimal body from a string or a Buffer', () => {
    expect(body(BASE)).toEqual({ ok: true, fields: BASE });
    expect(parseCurrentBody(Buffer.from(JSON.stringify(BASE)))).toEqual({ ok: true, fields: BASE });
  });

  it('writes the amount canonically and keeps the currency', () => {
    expect(body({ ...BASE, amount: '12.50', currency: 'USD' })).toEqual({ ok: true, fields: { ...BASE, amount: '12.5', currency: 'USD' } });
    expect(body({ ...BASE, amount: '3.00', currency: 'JPY' })).toEqual({ ok: true, fields: { ...BASE, amount: '3', currency: 'JPY' } });
  });

  it('takes zero, and an amount finer than its currency\'s minor unit as the sale it is (only the payout is rounded)', () => {
    expect(body({ ...BASE, amount: '0.00', currency: 'USD' })).toEqual({ ok: true, fields: { ...BASE, amount: '0', currency: 'USD' } });
    expect(body({ ...BASE, amount: '1000.5', currency: 'JPY' })).toEqual({ ok: true, fields: { ...BASE, amount: '1000.5', currency: 'JPY' } });
    expect(body({ ...BASE, amount: '12.34567891', currency: 'BHD' })).toEqual({ ok: true, fields: { ...BASE, amount: '12.34567891', currency: 'BHD' } });
  });

  it.each([
    ['svc_click_id', CLICK],
    ['offer_instance_id', INSTANCE],
    ['svc_tracking_id', 'Ab3dE5g7'],
    ['svc_tracking_id', INSTANCE],
    ['svc_tracking_id', 'st_a'],
    ['svc_tracking_id', `st_${'x_-'.repeat(21)}y`],
  ])('attributes by %s %s', (name, value) => {
    const fields = { event_name: 'install', event_id: 'e-1', [name]: value };
    expect(body(fields)).toEqual({ ok: true, fields });
  });

  it('takes any one identity, and all three together', () => {
    for (const name of IDENTITY) expect(body({ event_name: 'e', offer_instance_id: INSTANCE, [name]: 'x' }).ok).toBe(true);
    expect(body({ ...BASE, event_id: 'e', partner_txn_id: 't' }).ok).toBe(true);
  });

  it('takes event_name up to 100 characters and identities up to 200, any script', () => {
    expect(body({ ...BASE, event_name: 'é'.repeat(100), order_id: '注文'.repeat(100) }).ok).toBe(true);
  });
});

describe('parseCurrentBody: rejections', () => {
  const rejected = (result: FieldsResult) => {
    if (result.ok) throw new Error(`accepted ${JSON.stringify(result.fields)}`);
    return result;
  };

  it('counts characters as the published schema does, not UTF-16 units: 100 emoji fit event_name, 101 do not', () => {
    expect(body({ ...BASE, event_name: '😀'.repeat(100), order_id: '𝄞'.repeat(200) }).ok).toBe(true);
    expect(rejected(body({ ...BASE, event_name: '😀'.repeat(101) })).field).toBe('event_name');
    expect(rejected(body({ ...BASE, order_id: '𝄞'.repeat(201) })).field).toBe('order_id');
  });

  it('refuses a key given twice, even with the same value or written with escapes; nested and string contents do not count', () => {
    const twice = (text: string) => rejected(parseCurrentBody(text));
    expect(twice(`{"event_name":"a","event_id":"1","svc_click_id":"${CLICK}","event_id":"2"}`)).toEqual({
      ok: false,
      reason: 'invalid_payload',
      field: 'event_id',
      message: 'event_id: is given twice; send each field once',
    });
    expect(twice(`{"event_name":"a","event_name":"a","svc_click_id":"${CLICK}","event_id":"1"}`).field).toBe('event_name');
    expect(twice(`{"event_name":"a","event\\u005fid":"1","svc_click_id":"${CLICK}","event_id":"1"}`).field).toBe('event_id');
    expect(parseCurrentBody(`{"event_name":"event_id\\":","svc_click_id":"${CLICK}","event_id":"1"}`)).toMatchObject({ ok: true });
  });

  it('names an unknown field and lists the fields the body takes', () => {
    expect(rejected(body({ ...BASE, click_id: CLICK }))).toEqual({
      ok: false,
      reason: 'invalid_payload',
      field: 'click_id',
      message: `click_id: is not a field of the postback body; it takes ${KNOWN.join(', ')}`,
    });
    expect(rejected(body({ ...BASE, 'a b': 1 })).field).toBe('"a b"');
    expect(rejected(body({ ...BASE, ['k'.repeat(300)]: 1 })).field).toBe(JSON.stringify(`${'k'.repeat(100)}…`));
  });

  it('refuses prototype keys like any unknown field', () => {
    const proto = rejected(parseCurrentBody(`{"__proto__":{"admin":true},"event_name":"a","svc_click_id":"${CLICK}","event_id":"1"}`));
    expect(proto).toMatchObject({ reason: 'invalid_payload', field: '__proto__' });
    expect(rejected(body({ ...BASE, constructor: { prototype: {} } }))).toMatchObject({ reason: 'invalid_payload', field: 'constructor' });
  });

  it.each([
    ['amount', 12.5, 'amount: must be a decimal string such as "12.50" (no sign or exponent, at most 15 digits before the point and 8 after), not a number'],
    ['amount', null, 'amount: must be a decimal string such as "12.50" (no sign or exponent, at most 15 digits before the point and 8 after), not null'],
    ['currency', ['USD'], 'currency: must be an uppercase ISO 4217 currency code such as "USD", not an array'],
    ['event_id', { id: 1 }, 'event_id: must be a string of 1 to 200 characters, not only spaces, without control characters or unpaired surrogates (a \\ud800-\\udfff escape alone), not an object'],
    ['event_name', true, 'event_name: must be a string of 1 to 100 characters, not only spaces, without control characters or unpaired surrogates (a \\ud800-\\udfff escape alone), not a boolean'],
    ['svc_click_id', 7, 'svc_click_id: must be a canonical lowercase UUID such as "0190f5a2-7b3c-7d4e-8f60-1a2b3c4d5e6f", not a number'],
  ])('%s = %j is the wrong type', (name, value, message) => {
    expect(rejected(body({ ...BASE, amount: '1', currency: 'USD', [name]: value }))).toEqual({ ok: false, reason: 'invalid_payload', field: name, message });
  });

  it.each([
    ['amount', '-1'],
    ['amount', '1e3'],
    ['amount', '01'],
    ['amount', '1.'],
    ['amount', '.5'],
    ['amount', ' 1'],
    ['amount', '1,50'],
    ['amount', '1.123456789'],
    ['amount', '1234567890123456'],
    ['amount', '-0'],
    ['amount', '+1'],
    ['amount', '1E3'],
    ['amount', '1\n'],
    ['amount', '\uff11'],
    ['amount', '\u0661'],
    ['amount', 'NaN'],
    ['currency', 'usd'],
    ['currency', 'Usd'],
    ['currency', 'ABC'],
    ['currency', 'USDT'],
    ['svc_click_id', CLICK.toUpperCase()],
    ['svc_click_id', `{${CLICK}}`],
    ['svc_click_id', CLICK.replaceAll('-', '')],
    ['offer_instance_id', 'not-a-uuid'],
    ['svc_tracking_id', 'Ab3dE5g'],
    ['svc_tracking_id', 'Ab3dE5g7h'],
    ['svc_tracking_id', 'st_'],
    ['svc_tracking_id', `st_${'a'.repeat(65)}`],
    ['svc_tracking_id', 'st_a.b'],
    ['event_name', ''],
    ['event_name', 'x'.repeat(101)],
    ['event_name', 'line\nbreak'],
    ['event_name', ' '],
    ['order_id', '\u00a0\u2003 '],
    ['event_id', ''],
    ['order_id', 'x'.repeat(201)],
    ['partner_txn_id', 'nul\u0000'],
    ['partner_txn_id', 'c1\u0085'],
    ['event_id', 'lone \ud800 surrogate'],
  ])('%s = %j is invalid_payload naming it', (name, value) => {
    expect(rejected(body({ ...BASE, amount: '1', currency: 'USD', [name]: value }))).toMatchObject({ reason: 'invalid_payload', field: name });
  });

  it('says what an amount must look like', () => {
    expect(rejected(body({ ...BASE, amount: '12,50', currency: 'EUR' })).message).toMatch(/^amount: must be a decimal string such as "12.50"/);
  });

  it('wants amount and currency together', () => {
    expect(rejected(body({ ...BASE, amount: '1' }))).toMatchObject({ reason: 'invalid_payload', field: 'currency' });
    expect(rejected(body({ ...BASE, currency: 'USD' }))).toMatchObject({ reason: 'invalid_payload', field: 'amount' });
  });

  it('wants event_name', () => {
    const { event_name: _, ...rest } = BASE;
    expect(rejected(body(rest))).toMatchObject({ reason: 'invalid_payload', field: 'event_name' });
  });

  it('wants an attribution, then an identity', () => {
    expect(rejected(body({ event_name: 'a', order_id: 'o' }))).toEqual({
      ok: false,
      reason: 'missing_attribution',
      message: 'the postback names no attribution: send at least one of svc_click_id, svc_tracking_id, offer_instance_id',
    });
    expect(rejected(body({ event_name: 'a', svc_click_id: CLICK }))).toEqual({
      ok: false,
      reason: 'missing_identity',
      message: 'the postback has no business identity: send at least one of event_id, order_id, partner_txn_id',
    });
    expect(rejected(body({ event_name: 'a' })).reason).toBe('missing_attribution');
  });

  it.each([
    ['', 'the body is empty; send a JSON object'],
    [' \n', 'the body is empty; send a JSON object'],
    ['{"event_name":', 'the body is not valid JSON'],
    ["{'event_name':'a'}", 'the body is not valid JSON'],
    ['null', 'the body must be a JSON object of string fields, not null'],
    ['[]', 'the body must be a JSON object of string fields, not an array'],
    ['"purchase"', 'the body must be a JSON object of string fields, not a string'],
    ['12', 'the body must be a JSON object of string fields, not a number'],
  ])('%j → %s', (raw, message) => {
    expect(parseCurrentBody(raw)).toEqual({ ok: false, reason: 'invalid_payload', message });
  });

  it('refuses bytes that are not UTF-8', () => {
    const raw = Buffer.concat([Buffer.from('{"event_name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    expect(parseCurrentBody(raw)).toEqual({ ok: false, reason: 'invalid_payload', message: 'the body is not valid UTF-8' });
  });
});

describe('parseCompatParams', () => {
  it('reads query or form values, ignoring unknown parameters', () => {
    expect(parseCompatParams({ ...BASE, amount: '12.50', currency: 'USD', sub1: 'x', __proto__: 'y', constructor: 'z' })).toEqual({
      ok: true,
      fields: { ...BASE, amount: '12.5', currency: 'USD' },
    });
  });

  it('treats empty values and unexpanded macros as absent', () => {
    const params = { ...BASE, event_id: '', partner_txn_id: '{txn_id}', offer_instance_id: '{{instance}}', amount: '{amount}', currency: '{{currency}}' };
    expect(parseCompatParams(params)).toEqual({ ok: true, fields: BASE });
    expect(parseCompatParams({ ...BASE, svc_click_id: '{click_id}' })).toMatchObject({ ok: false, reason: 'missing_attribution' });
    expect(parseCompatParams({ ...BASE, event_name: '{event}' })).toMatchObject({ ok: false, reason: 'invalid_payload', field: 'event_name' });
  });

  it('refuses a known parameter given twice, even with the same value; one value in a list is that value', () => {
    expect(parseCompatParams({ ...BASE, order_id: ['o-1', 'o-1'] })).toEqual({
      ok: false,
      reason: 'invalid_payload',
      field: 'order_id',
      message: 'order_id: is given 2 times; send it once',
    });
    expect(parseCompatParams({ ...BASE, order_id: ['o-1'] })).toEqual({ ok: true, fields: BASE });
    expect(parseCompatParams({ ...BASE, sub1: ['a', 'b'] })).toEqual({ ok: true, fields: BASE });
  });

  it('has no aliases: click_id and tracking_id are unknown parameters', () => {
    expect(parseCompatParams({ event_name: 'a', order_id: 'o', click_id: CLICK, tracking_id: 'Ab3dE5g7' })).toMatchObject({ ok: false, reason: 'missing_attribution' });
  });

  it('applies the formats and pairings of the current contract', () => {
    expect(parseCompatParams({ ...BASE, amount: '12,50', currency: 'EUR' })).toMatchObject({ reason: 'invalid_payload', field: 'amount' });
    expect(parseCompatParams({ ...BASE, amount: '12.50' })).toMatchObject({ reason: 'invalid_payload', field: 'currency' });
    expect(parseCompatParams({ ...BASE, svc_click_id: CLICK.toUpperCase() })).toMatchObject({ reason: 'invalid_payload', field: 'svc_click_id' });
    expect(parseCompatParams({ ...BASE, event_id: 5 })).toMatchObject({ reason: 'invalid_payload', field: 'event_id' });
    expect(parseCompatParams({ event_name: 'a', svc_click_id: CLICK })).toMatchObject({ ok: false, reason: 'missing_identity' });
  });
});

describe('postbackIdentity', () => {
  it('is the first present of event_id, (event_name, order_id), partner_txn_id', () => {
    const all = { ...BASE, event_id: 'e-1', partner_txn_id: 't-1' };
    expect(postbackIdentity(all)).toEqual({ kind: 'event_id', key: '["event_id","e-1"]' });
    expect(postbackIdentity({ ...all, event_id: undefined })).toEqual({ kind: 'order_id', key: '["order_id","purchase","o-1"]' });
    expect(postbackIdentity({ event_name: 'a', partner_txn_id: 't-1' })).toEqual({ kind: 'partner_txn_id', key: '["partner_txn_id","t-1"]' });
    expect(postbackIdentity({ event_name: 'a', svc_click_id: CLICK })).toBeUndefined();
  });

  it('tells apart the same order for different events', () => {
    expect(postbackIdentity({ ...BASE, event_name: 'install' })!.key).not.toBe(postbackIdentity(BASE)!.key);
  });

  it('is unambiguous: two keys are equal exactly when kind and parts are', () => {
    const part = fc.oneof(fc.constantFrom('a', 'a,b', '","', '\\', '["x"]'), printable(10));
    const fields = fc.record({ event_name: part, event_id: part, order_id: part, partner_txn_id: part }, { requiredKeys: ['event_name'] });
    const parts = (f: PostbackFields) =>
      f.event_id !== undefined ? ['event_id', f.event_id] : f.order_id !== undefined ? ['order_id', f.event_name, f.order_id] : f.partner_txn_id !== undefined ? ['partner_txn_id', f.partner_txn_id] : [];
    fc.assert(
      fc.property(fields, fields, (a, b) => {
        const [ka, kb] = [postbackIdentity(a)?.key, postbackIdentity(b)?.key];
        expect(ka === kb).toBe(parts(a).join('\u0000') === parts(b).join('\u0000') && parts(a).length === parts(b).length);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('postbackFingerprint', () => {
  const report = { ...BASE, amount: '12.5', currency: 'USD' };

  it('is sha256 hex, the same for the same report however the amount is written', () => {
    expect(postbackFingerprint(report)).toMatch(/^[0-9a-f]{64}$/);
    expect(postbackFingerprint({ ...report, amount: '12.50' })).toBe(postbackFingerprint(report));
    const reordered = { currency: 'USD', amount: '12.500', order_id: 'o-1', svc_click_id: CLICK, event_name: 'purchase' };
    expect(postbackFingerprint(reordered)).toBe(postbackFingerprint(report));
  });

  it('changes with any reported field, and tells absent from empty', () => {
    const variants: PostbackFields[] = [
      { ...report, amount: '12.51' },
      { ...report, currency: 'EUR' },
      { ...report, event_name: 'refund' },
      { ...report, svc_click_id: INSTANCE },
      { ...report, svc_tracking_id: 'Ab3dE5g7' },
      { ...report, offer_instance_id: INSTANCE },
      { ...report, event_id: 'e-1' },
      { ...report, order_id: 'o-2' },
      { ...report, partner_txn_id: 't-1' },
      { ...BASE },
    ];
    const prints = new Set([report, ...variants].map(postbackFingerprint));
    expect(prints.size).toBe(variants.length + 1);
  });

  it('differs whenever the normalised reports differ (generated)', () => {
    fc.assert(
      fc.property(validFields, validFields, (a, b) => {
        const same = JSON.stringify(Object.entries(normalised(a)).sort()) === JSON.stringify(Object.entries(normalised(b)).sort());
        expect(postbackFingerprint(a) === postbackFingerprint(b)).toBe(same);
      }),
      { numRuns: 500 },
    );
  });
});

// ---- properties over generated requests -------------------------------------------------------

interface Bad {
  raw: string | Buffer;
  reason: 'invalid_payload' | 'missing_identity' | 'missing_attribution';
  field?: string;
}

/** A JSON object text from entries, so keys like __proto__ stay plain own keys. */
const objectText = (entries: [string, unknown][]) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`;
const without = (fields: PostbackFields, names: readonly string[]) => Object.entries(fields).filter(([key]) => !names.includes(key));
const bad = (fields: PostbackFields, name: string, value: unknown, reason: Bad['reason'] = 'invalid_payload'): Bad => ({
  raw: objectText([...without(fields, [name]), [name, value]]),
  reason,
  field: name,
});
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const nonString = fc.jsonValue().filter((value) => typeof value !== 'string');
const withMoney = validFields.chain((fields) => fc.record({ amount: decimalText, currency }).map((money) => ({ ...fields, ...money })));
/** Independent statement of the formats, for filtering generated garbage. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TRACKING = /^([A-Za-z0-9]{8}|st_[A-Za-z0-9_-]{1,64})$/;
const DECIMAL = /^(0|[1-9][0-9]{0,14})(\.[0-9]{1,8})?$/;

const badBodies: fc.Arbitrary<Bad> = fc.oneof(
  // JSON that is not an object
  fc.jsonValue().filter((value) => typeof value !== 'object' || value === null || Array.isArray(value)).map((value): Bad => ({ raw: JSON.stringify(value), reason: 'invalid_payload' })),
  // an unknown key (prototype keys and near-misses included), anywhere in the object
  fc
    .tuple(validFields, fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'click_id', 'Amount', 'event_name ', ''), fc.string({ maxLength: 30 })), fc.jsonValue(), fc.nat())
    .filter(([, key]) => !KNOWN.includes(key))
    .map(([fields, key, value, at]): Bad => {
      const entries = Object.entries(fields) as [string, unknown][];
      entries.splice(at % (entries.length + 1), 0, [key, value]);
      return { raw: objectText(entries), reason: 'invalid_payload', field: PLAIN_KEY.test(key) ? key : JSON.stringify(key) };
    }),
  // a known field with a value that is not a string
  fc.tuple(withMoney, fc.constantFrom(...KNOWN), nonString).map(([fields, name, value]) => bad(fields, name, value)),
  // bad decimals
  fc
    .tuple(
      withMoney,
      fc.oneof(
        fc.constantFrom('-1', '+1', '1e3', '01', '00', '1.', '.5', ' 1', '1 ', '1,50', '1.123456789', '1234567890123456', 'NaN', 'Infinity', '0x10', '１２', ''),
        decimalText.map((text) => `-${text}`),
        decimalText.map((text) => `${text}${text.includes('.') ? '' : '.'}123456789`),
        fc.string({ maxLength: 20 }).filter((text) => !DECIMAL.test(text)),
      ),
    )
    .map(([fields, amount]) => bad(fields, 'amount', amount)),
  // bad UUIDs and tracking ids
  fc
    .tuple(
      validFields,
      fc.constantFrom('svc_click_id', 'offer_instance_id'),
      fc.oneof(
        fc.uuid().filter((id) => /[a-f]/.test(id)).map((id) => id.toUpperCase()),
        fc.uuid().map((id) => `{${id}}`),
        fc.uuid().map((id) => id.replaceAll('-', '')),
        fc.uuid().map((id) => id.slice(1)),
        fc.string({ maxLength: 40 }).filter((text) => !UUID.test(text)),
      ),
    )
    .map(([fields, name, id]) => bad(fields, name, id)),
  fc
    .tuple(validFields, fc.oneof(trackingId.map((id) => `${id}!`), fc.constant(`st_${'a'.repeat(65)}`), fc.string({ maxLength: 40 }).filter((text) => !UUID.test(text) && !TRACKING.test(text))))
    .map(([fields, id]) => bad(fields, 'svc_tracking_id', id)),
  // currencies: mixed case, unknown codes
  fc
    .tuple(withMoney, fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }))
    .filter(([, lower]) => lower.some(Boolean))
    .map(([fields, lower]) => bad(fields, 'currency', [...fields.currency!].map((c, i) => (lower[i] ? c.toLowerCase() : c)).join(''))),
  fc.tuple(withMoney, fc.constantFrom('ABC', 'XXX', 'US', 'USDT', 'U$D', '')).map(([fields, code]) => bad(fields, 'currency', code)),
  // texts: empty, too long, control characters, lone surrogates
  fc
    .tuple(validFields, fc.constantFrom(...IDENTITY, 'event_name'), fc.constantFrom('', '\u0000', '\n', '\u007f', '\u009f', '\ud800', '\udc00x'), fc.nat({ max: 250 }))
    .map(([fields, name, insert, length]) => {
      const max = name === 'event_name' ? 100 : 200;
      const value = insert === '' ? (length % 2 ? '' : 'x'.repeat(max + 1 + (length % 5))) : `${'y'.repeat(length % 20)}${insert}`;
      return bad(fields, name, value);
    }),
  // amount and currency apart
  withMoney.map((fields): Bad => ({ raw: objectText(without(fields, ['currency'])), reason: 'invalid_payload', field: 'currency' })),
  withMoney.map((fields): Bad => ({ raw: objectText(without(fields, ['amount'])), reason: 'invalid_payload', field: 'amount' })),
  // no event_name, no attribution, no identity
  validFields.map((fields): Bad => ({ raw: objectText(without(fields, ['event_name'])), reason: 'invalid_payload', field: 'event_name' })),
  validFields.map((fields): Bad => ({ raw: objectText(without(fields, ATTRIBUTION)), reason: 'missing_attribution' })),
  validFields.map((fields): Bad => ({ raw: objectText(without(fields, IDENTITY)), reason: 'missing_identity' })),
  // not JSON, not UTF-8, empty
  fc.tuple(validFields, fc.nat()).map(([fields, cut]): Bad => {
    const text = JSON.stringify(fields);
    return { raw: text.slice(0, cut % text.length), reason: 'invalid_payload' };
  }),
  fc.tuple(fc.uint8Array({ maxLength: 40 }), fc.constantFrom(0xff, 0xfe, 0xc0, 0x80)).map(([bytes, invalid]): Bad => ({ raw: Buffer.from([...bytes, invalid]), reason: 'invalid_payload' })),
  fc.constantFrom('', ' ', '\t\r\n').map((raw): Bad => ({ raw, reason: 'invalid_payload' })),
);

describe('generated requests', () => {
  it('10,000 bad bodies: never throws, always rejected with the expected stable reason and field', () => {
    fc.assert(
      fc.property(badBodies, ({ raw, reason, field }) => {
        const result = parseCurrentBody(raw);
        expect(result).toMatchObject({ ok: false, reason });
        if (result.ok) return;
        expect(result.field).toBe(field);
        expect(result.message.length).toBeGreaterThan(0);
        expect(parseCurrentBody(raw)).toEqual(result);
      }),
      { numRuns: 10_000 },
    );
  });

  it('compatibility parameters from the same bad bodies get the same verdict (where they can be sent as text)', () => {
    fc.assert(
      fc.property(badBodies, ({ raw, reason, field }) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw.toString());
        } catch {
          return;
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return;
        const params = Object.fromEntries(Object.entries(parsed).filter(([key]) => KNOWN.includes(key)));
        // Absent-by-leniency values do not apply to the current contract's verdict.
        fc.pre(Object.values(params).every((value) => value !== '' && !(typeof value === 'string' && /^\{.*\}$/s.test(value))));
        fc.pre(Object.values(params).every((value) => !Array.isArray(value)));
        if (field !== undefined && !KNOWN.includes(field)) return; // unknown keys are ignored there
        const result = parseCompatParams(params);
        expect(result).toMatchObject({ ok: false, reason });
        expect(result.ok ? undefined : result.field).toBe(field);
      }),
      { numRuns: 2000 },
    );
  });

  it('valid bodies round-trip: parse(JSON.stringify(x)) is x with the amount canonical, from a string or bytes, in any key order', () => {
    fc.assert(
      fc.property(validFields, fc.nat(), (fields, seed) => {
        const expected = { ok: true, fields: normalised(fields) };
        expect(parseCurrentBody(JSON.stringify(fields))).toEqual(expected);
        expect(parseCurrentBody(Buffer.from(JSON.stringify(fields)))).toEqual(expected);
        const entries = Object.entries(fields);
        const rotated = [...entries.slice(seed % entries.length), ...entries.slice(0, seed % entries.length)];
        expect(parseCurrentBody(objectText(rotated))).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('valid parameters parse as the same fields on the compatibility routes, unknown ones ignored', () => {
    fc.assert(
      fc.property(validFields, fc.dictionary(fc.string().filter((key) => !KNOWN.includes(key)), fc.oneof(fc.string(), fc.array(fc.string()))), (fields, extra) => {
        fc.pre(Object.values(fields).every((value) => !/^\{.*\}$/s.test(value)));
        expect(parseCompatParams({ ...extra, ...fields })).toEqual({ ok: true, fields: normalised(fields) });
      }),
      { numRuns: 1000 },
    );
  });
});
