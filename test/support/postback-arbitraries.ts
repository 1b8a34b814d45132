import fc from 'fast-check';
import type { PostbackFields } from '../../commands/postbacks/fields.js';
import { CURRENCIES } from '../../schemas/documents/currency.js';

/** Generators for postback property tests: decimals, currencies and valid postback fields. */

const DIGIT = [...'0123456789'];
const ALNUM = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'];

const digits = (minLength: number, maxLength: number) => fc.string({ unit: fc.constantFrom(...DIGIT), minLength, maxLength });

/** Accepted decimal text, trailing fraction zeros included (not yet canonical). */
export const decimalText = fc
  .tuple(fc.oneof(fc.constant('0'), fc.tuple(fc.constantFrom(...DIGIT.slice(1)), digits(0, 14)).map(([head, tail]) => head + tail)), fc.option(digits(1, 8), { nil: undefined }))
  .map(([whole, fraction]) => (fraction === undefined ? whole : `${whole}.${fraction}`));

/** The same value written without trailing fraction zeros, computed independently of the code under test. */
export const withoutTrailingZeros = (text: string) => (text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text);

export const currency = fc.constantFrom(...CURRENCIES);

/** Strings of 1..max UTF-16 units, not blank, without control characters or lone surrogates; mostly ASCII. */
export const printable = (max: number) =>
  fc
    .oneof(fc.string({ minLength: 1, maxLength: max }), fc.string({ unit: 'binary', minLength: 1, maxLength: max }))
    .filter((text) => text.length <= max && !/[\p{Cc}\p{Cs}]/u.test(text) && text.trim() !== '');

export const trackingId = fc.oneof(
  fc.string({ unit: fc.constantFrom(...ALNUM), minLength: 8, maxLength: 8 }),
  fc.uuid(),
  fc.string({ unit: fc.constantFrom(...ALNUM, '_', '-'), minLength: 1, maxLength: 64 }).map((token) => `st_${token}`),
);

/** Valid postback fields (amount possibly with trailing zeros) with at least one attribution and one identity. */
export const validFields: fc.Arbitrary<PostbackFields> = fc
  .tuple(
    fc.record(
      {
        event_name: printable(100),
        svc_click_id: fc.uuid(),
        svc_tracking_id: trackingId,
        offer_instance_id: fc.uuid(),
        event_id: printable(200),
        order_id: printable(200),
        partner_txn_id: printable(200),
      },
      { requiredKeys: ['event_name'] },
    ),
    fc.option(fc.record({ amount: decimalText, currency }), { nil: undefined }),
  )
  .map(([fields, money]) => ({ ...fields, ...money }))
  .filter(
    (fields) =>
      (fields.svc_click_id ?? fields.svc_tracking_id ?? fields.offer_instance_id) !== undefined &&
      (fields.event_id ?? fields.order_id ?? fields.partner_txn_id) !== undefined,
  );
