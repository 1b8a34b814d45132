import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../platform/http/errors.js';
import { parseInstancesBody } from '../../services/api/routes/offers/instances-request.js';

const RULE = 'offer_instance_ids must contain between 1 and 100 offer instance ids';
const A = '0190a6e0-ef9a-70ea-a6c7-41aaa878f145';
const B = '0190a6e0-ef9a-70ea-a6c7-41aaa878f146';

function rejection(body: unknown): string {
  try {
    parseInstancesBody(body);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).statusCode).toBe(400);
    expect((error as ApiError).code).toBe('BAD_REQUEST');
    return (error as ApiError).message;
  }
  throw new Error('accepted');
}

describe('parseInstancesBody', () => {
  it('lowercases ids and removes duplicates keeping the first occurrence, in order', () => {
    expect(parseInstancesBody({ offer_instance_ids: [B.toUpperCase(), A, B, A.toUpperCase()] })).toEqual({ offer_instance_ids: [B, A] });
  });

  it('counts items as sent: 100 copies of one id pass, 101 do not', () => {
    expect(parseInstancesBody({ offer_instance_ids: Array(100).fill(A) })).toEqual({ offer_instance_ids: [A] });
    expect(rejection({ offer_instance_ids: Array(101).fill(A) })).toBe(`${RULE}; the list has 101 items`);
  });

  it.each([
    [null, 'the body must be a JSON object holding that list'],
    [[A], 'the body must be a JSON object holding that list'],
    [A, 'the body must be a JSON object holding that list'],
    [{}, 'offer_instance_ids is missing'],
    [{ offer_instance_ids: A }, 'offer_instance_ids is not an array'],
    [{ offer_instance_ids: {} }, 'offer_instance_ids is not an array'],
    [{ offer_instance_ids: [] }, 'the list is empty'],
    [{ offer_instance_ids: [A, 7] }, 'offer_instance_ids[1] is not a string UUID'],
    [{ offer_instance_ids: [A, ` ${B}`] }, 'offer_instance_ids[1] is not a UUID'],
    [{ offer_instance_ids: ['https://l.example/AbCd1234'] }, "offer_instance_ids[0] is a URL, not a UUID; send the card's offer_instance_id"],
  ])('%j → the rule, then what is wrong', (body, detail) => {
    expect(rejection(body)).toBe(`${RULE}; ${detail}`);
  });

  it('names an unknown field', () => {
    expect(rejection({ offer_instance_ids: [A], offer_ids: [A] })).toBe('unknown body field "offer_ids"; the body holds only offer_instance_ids');
  });

  it('removes duplicates among ids that end alike, keeping the first of each (property)', () => {
    // Ids that differ only before their last characters, in either case: the same place in the
    // parser's table of ids seen, told apart by the whole id.
    const pool = Array.from({ length: 12 }, (_, n) => `${n.toString(16).padStart(8, '0')}-0000-7000-8000-00000000abcd`);
    const item = fc.constantFrom(...pool).chain((id) => fc.constantFrom(id, id.toUpperCase()));
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 100 }), (list) => {
        expect(parseInstancesBody({ offer_instance_ids: list }).offer_instance_ids).toEqual([...new Set(list.map((id) => id.toLowerCase()))]);
      }),
      { numRuns: 500 },
    );
  });

  it('accepts exactly the lists of 1 to 100 UUID strings; answers them canonical and unique (property)', () => {
    const uuidLike = fc.uuid().chain((id) => fc.constantFrom(id, id.toUpperCase()));
    const item = fc.oneof(uuidLike, uuidLike, fc.string(), fc.integer(), fc.constant(null));
    fc.assert(
      fc.property(fc.oneof(fc.record({ offer_instance_ids: fc.array(item, { maxLength: 105 }) }), fc.jsonValue()), (body) => {
        const list = (body as { offer_instance_ids?: unknown })?.offer_instance_ids;
        const valid =
          typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 1 && Array.isArray(list) &&
          list.length >= 1 && list.length <= 100 && list.every((id) => typeof id === 'string' && /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(id));
        if (!valid) {
          expect(() => parseInstancesBody(body)).toThrow(ApiError);
          return;
        }
        const { offer_instance_ids: ids } = parseInstancesBody(body);
        expect(ids).toEqual([...new Set((list as string[]).map((id) => id.toLowerCase()))]);
      }),
      { numRuns: 2000 },
    );
  });
});
