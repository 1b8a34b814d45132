import { describe, expect, it } from 'vitest';
import { ApiError } from '../../platform/http/errors.js';
import { parseQueryBody } from '../../services/api/routes/offers/query-body.js';

function rejection(body: unknown): ApiError {
  try {
    parseQueryBody(body);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

describe('Query body', () => {
  it('defaults: no body at all is the empty request, limit 3, empty context', () => {
    expect(parseQueryBody(undefined)).toEqual({ limit: 3, context: {} });
    expect(parseQueryBody({})).toEqual({ limit: 3, context: {} });
  });

  it('keeps the declared fields and reads placement_id in canonical lower case', () => {
    const body = { placement_id: '01A2B3C4-0000-7000-8000-00000000000F', limit: 10, context: { intent: 'running shoes', locale: 'pt-BR', categories: ['sport'] } };
    expect(parseQueryBody(body)).toEqual({ ...body, placement_id: '01a2b3c4-0000-7000-8000-00000000000f' });
  });

  it('counts lengths in characters: 200 emoji are a short intent, 201 are not', () => {
    expect(parseQueryBody({ context: { intent: '😀'.repeat(200), categories: ['🛍'.repeat(200)] } }).context.intent).toHaveLength(400);
    expect(parseQueryBody({ context: { intent: `${'a'.repeat(199)}😀` } }).context.intent).toHaveLength(201);
    expect(rejection({ context: { intent: '😀'.repeat(201) } }).message).toBe('context.intent must be a string of at most 200 characters');
    expect(rejection({ context: { categories: ['🛍'.repeat(201)] } }).extra).toEqual({ field: 'context.categories[0]' });
  });

  it.each(['en', 'pt-BR', 'EN', 'zh-Hant-TW', 'es-419', 'de-CH-1901', 'en-US-u-ca-gregory', 'en-a-bbb', 'x-priv', 'en-x-internal', 'i-klingon', 'zh-min-nan', 'art-lojban'])(
    'takes the well-formed BCP 47 tag %s as locale',
    (locale) => {
      expect(parseQueryBody({ context: { locale } }).context.locale).toBe(locale);
    },
  );

  it.each(['', 'e', 'en_US', 'en-', 'en--US', 'en-US-u', 'en-x', 'i-foo', 'toolongtag', '123'])('refuses %j as locale, naming it', (locale) => {
    expect(rejection({ context: { locale } })).toMatchObject({ message: 'context.locale must be a BCP 47 language tag such as en or pt-BR', extra: { field: 'context.locale' } });
  });

  it('names the first undeclared field, at any depth, and says what the object takes', () => {
    const deep = rejection({ context: { user_profile: { location_ids: ['2840'] } } });
    expect(deep).toMatchObject({ statusCode: 400, code: 'BAD_REQUEST', extra: { field: 'context.user_profile' } });
    expect(deep.message).toBe('context.user_profile is not a known field; context takes intent, locale and categories; a location is never sent in the body');
    expect(rejection({ country: 'US' }).message).toBe('country is not a known field; the body takes placement_id, limit and context');
  });

  it('quotes keys that are not plain names and cuts long ones', () => {
    expect(rejection({ 'a/b~c': 1 }).extra).toEqual({ field: '["a/b~c"]' });
    expect(rejection({ context: { 'x y': 1 } }).extra).toEqual({ field: 'context["x y"]' });
    // A key spelled with digits is a key, not a position in an array.
    expect(rejection({ context: { 12: 1 } })).toMatchObject({ message: 'context["12"] is not a known field; context takes intent, locale and categories; a location is never sent in the body', extra: { field: 'context["12"]' } });
    expect(rejection({ '': 1 }).extra).toEqual({ field: '[""]' });
    expect((rejection({ ['k'.repeat(300)]: 1 }).extra.field as string).length).toBeLessThan(120);
  });

  it('refuses a NUL or a lone surrogate in the context, naming the field', () => {
    expect(rejection({ context: { intent: 'shoes\u0000' } })).toMatchObject({
      statusCode: 400,
      message: 'context.intent contains a NUL character (U+0000), which no read model can store; remove it',
      extra: { field: 'context.intent' },
    });
    expect(rejection({ context: { categories: ['sport', 'x\ud800'] } }).extra).toEqual({ field: 'context.categories[1]' });
    expect(rejection({ context: { intent: '\udc00 end' } }).message).toMatch(/^context\.intent contains a lone UTF-16 surrogate/);
    expect(parseQueryBody({ context: { intent: 'a pair 😀 is one character', categories: ['🛍'] } }).context.categories).toEqual(['🛍']);
  });

  it.each([
    [{ limit: 0 }, 'limit must be an integer from 1 to 10'],
    [{ limit: 1.5 }, 'limit must be an integer from 1 to 10'],
    [{ placement_id: 'x' }, 'placement_id must be a UUID (an active placement of the calling application)'],
    [{ context: [] }, 'context must be an object with optional intent, locale and categories'],
    [{ context: { categories: [''] } }, 'context.categories[0] must be a category id (a string of 1 to 200 characters)'],
    [{ context: { categories: 'a' } }, 'context.categories must be an array of at most 10 category ids'],
    ['text', 'the body must be a JSON object with optional placement_id, limit and context'],
  ])('%j → %s', (body, message) => {
    expect(rejection(body).message).toBe(message);
  });
});
