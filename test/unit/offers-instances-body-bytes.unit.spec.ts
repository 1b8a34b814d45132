import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { repeatedKey } from '../../platform/text/json-keys.js';
import { readCanonicalIdList } from '../../services/api/routes/offers/instances-body-bytes.js';
import { parseInstancesBody } from '../../services/api/routes/offers/instances-request.js';
import { RequestedIds } from '../../services/api/routes/offers/requested-ids.js';

/** What the general way (decode, JSON.parse, a repeated key, parseInstancesBody) makes of a body: its ids, or 'refused'. */
function generalIds(bytes: Buffer): string[] | 'refused' {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && repeatedKey(text) !== undefined) return 'refused';
    return parseInstancesBody(parsed).offer_instance_ids;
  } catch {
    return 'refused';
  }
}

const idsOf = (requested: RequestedIds) => Array.from({ length: requested.count }, (_, index) => requested.id(index));

const canonical = fc.uuid().map((id) => id.toLowerCase());
const space = fc.stringMatching(/^[ \t\n\r]{0,3}$/);
/** 1 to 100 ids, often repeating (drawn from a few), each with JSON whitespace drawn around every token. */
const usualBody = fc
  .tuple(fc.array(canonical, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 100 }))
  .chain(([pool, count]) => fc.tuple(fc.array(fc.constantFrom(...pool), { minLength: count, maxLength: count }), fc.array(space, { minLength: 2 * count + 8, maxLength: 2 * count + 8 })))
  .map(([ids, gaps]) => {
    let gap = 0;
    const g = () => gaps[gap++]!;
    const items = ids.map((id) => `${g()}"${id}"${g()}`).join(',');
    return { ids, text: `${g()}{${g()}"offer_instance_ids"${g()}:${g()}[${items}]${g()}}${g()}` };
  });

describe('the instance body read from its bytes', () => {
  it('reads every usual body as the general way does: the same ids, duplicates removed keeping the first (property)', () => {
    fc.assert(
      fc.property(usualBody, ({ ids, text }) => {
        const read = readCanonicalIdList(Buffer.from(text, 'utf8'));
        expect(read).toBeDefined();
        expect(idsOf(read!)).toEqual([...new Set(ids)]);
        expect(idsOf(read!)).toEqual(generalIds(Buffer.from(text, 'utf8')));
        // The words are those of the ids' texts.
        expect([...read!.words]).toEqual([...RequestedIds.fromTexts(idsOf(read!)).words]);
      }),
      { numRuns: 500 },
    );
  });

  it('leaves every other body to the general way, and never reads one differently from it (property)', () => {
    const damaged = usualBody.chain(({ text }) =>
      fc.oneof(
        // A byte changed, inserted or removed anywhere.
        fc.tuple(fc.nat(text.length - 1), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([byte]), Buffer.from(text.slice(at + 1))])),
        fc.tuple(fc.nat(text.length), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([byte]), Buffer.from(text.slice(at))])),
        fc.nat(text.length - 1).map((at) => Buffer.from(text.slice(0, at) + text.slice(at + 1))),
        // The same list with something around or inside it.
        fc.constantFrom(
          `\uFEFF${text}`,
          text.replace('{', '{"x":1,'),
          text.replace(/}\s*$/, ',"offer_instance_ids":[]}'),
          text.replace('"offer_instance_ids"', '"offer_instance_id\\u0073"'),
          text.replace(/"([0-9a-f])/, '"\\u003$1'),
          text.replace(/"[0-9a-f]/, (start) => start.toUpperCase()),
          text.replace(/\[\s*"/, '[null,"'),
          text.replace(/\]/, ',]'),
        ).map((variant) => Buffer.from(variant, 'utf8')),
      ),
    );
    fc.assert(
      fc.property(damaged, (bytes) => {
        const read = readCanonicalIdList(bytes);
        if (read !== undefined) expect(idsOf(read)).toEqual(generalIds(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves lists of none or of more than 100 ids, and any other shape, to the general way', () => {
    const id = '0190a6e0-ef9a-70ea-a6c7-41aaa878f145';
    const list = (count: number) => Buffer.from(JSON.stringify({ offer_instance_ids: Array(count).fill(id) }));
    expect(readCanonicalIdList(list(0))).toBeUndefined();
    expect(readCanonicalIdList(list(101))).toBeUndefined();
    expect(idsOf(readCanonicalIdList(list(100))!)).toEqual([id]);
    for (const other of ['', '{}', '[]', 'null', `{"offer_instance_ids":"${id}"}`, `{"offer_instance_ids":["${id}"]`, `{"offer_instance_ids":["${id}"]}x`]) {
      expect(readCanonicalIdList(Buffer.from(other))).toBeUndefined();
    }
  });
});
