import { describe, expect, it } from 'vitest';
import { isJsonContentType, refusedCharset } from '../../platform/http/json-media-type.js';

describe('isJsonContentType', () => {
  it.each([
    ['application/json', true],
    ['Application/JSON; charset=utf-8', true],
    [' application/json ', true],
    ['application/json;', true],
    ['application/json; foo=bar', true],
    ['text/plain', false],
    ['application/jsonp', false],
    ['application/vnd.api+json', false],
    ['', false],
    [undefined, false],
  ])('%s → %s', (header, expected) => {
    expect(isJsonContentType(header)).toBe(expected);
  });
});

describe('refusedCharset', () => {
  it.each([
    ['application/json', undefined],
    ['application/json; charset=utf-8', undefined],
    ['application/json; charset="UTF-8"', undefined],
    ['application/json;charset=utf8', undefined],
    ['application/json; charset=us-ascii', undefined],
    ['application/json; charset=iso-8859-1', 'iso-8859-1'],
    ['application/json; foo=bar; charset=UTF-16', 'utf-16'],
    // A charset named without a value names none UTF-8 reads.
    ['application/json;charset=', '""'],
    ['application/json; charset=""', '""'],
  ])('%s → %s', (header, expected) => {
    expect(refusedCharset(header)).toBe(expected);
  });
});
