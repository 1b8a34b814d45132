import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conventionalLanguageTag, isKnownLanguage } from '../../projections/offers/language-tag.js';

describe('conventionalLanguageTag', () => {
  it.each([
    ['EN', 'en'],
    ['en', 'en'],
    ['pt-br', 'pt-BR'],
    ['ZH-HANT-TW', 'zh-Hant-TW'],
    ['es-419', 'es-419'],
    ['x-Klingon', 'x-klingon'],
    ['en-US-x-TWAIN', 'en-US-x-twain'],
    ['sl-ROZAJ', 'sl-rozaj'],
    ['de-CH-1901', 'de-CH-1901'],
  ])('%s → %s', (tag, expected) => {
    expect(conventionalLanguageTag(tag)).toBe(expected);
  });

  it('only changes case, and is idempotent', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[A-Za-z0-9]{1,8}$/), { minLength: 1, maxLength: 5 }).map((parts) => parts.join('-')), (tag) => {
        const shown = conventionalLanguageTag(tag);
        expect(shown.toLowerCase()).toBe(tag.toLowerCase());
        expect(conventionalLanguageTag(shown)).toBe(shown);
      }),
    );
  });
});

describe('isKnownLanguage', () => {
  it.each([['und', false], ['UND', false], ['und-Latn', false], ['und-x-private', false], ['zxx', false], ['mul', false], ['MIS', false], ['en', true], ['pt-BR', true], ['sgn-BE-FR', true], ['unde', true]])('%s → %s', (tag, expected) => {
    expect(isKnownLanguage(tag)).toBe(expected);
  });
});
