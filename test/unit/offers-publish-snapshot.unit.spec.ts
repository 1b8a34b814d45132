import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CommandInputError } from '../../commands/command.js';
import { publishSnapshot, snapshotPublishedEvent, type SnapshotInput } from '../../commands/offers/publish-snapshot.js';
import { validateInput } from '../../commands/validate.js';

const OFFER_ID = '0193b2c4-5d6e-7f80-9a1b-2c3d4e5f6a7b';
const content = {
  offer_info: { title: 'Spring sale', category: { id: 'shopping' }, description: 'a snapshot' },
  entity: { id: 'ent-1', name: 'Acme', type: 'merchant' },
  goals: [{ event: 'install', pricing: { model: 'cpa', amount: '1.00', currency: 'USD' } }],
};
/** Late enough that no generated updated_at is ahead of it. */
const NOW = new Date('9999-12-31T23:59:59.999Z');

const twoDigits = (value: number) => String(value).padStart(2, '0');

/** An instant written as RFC 3339 in one of its forms, with the instant it names to the millisecond. */
const writtenInstant = fc
  .record({
    ms: fc.integer({ min: Date.parse('0002-01-01T00:00:00Z'), max: Date.parse('9998-12-31T23:59:59.999Z') }),
    offsetMinutes: fc.oneof(fc.constant(0), fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 })),
    separator: fc.constantFrom('T', 't', ' '),
    utc: fc.constantFrom('Z', 'z', '+00:00', '-00:00'),
    fractionDigits: fc.integer({ min: 0, max: 9 }),
    finerDigits: fc.stringMatching(/^[0-9]{6}$/),
  })
  .map(({ ms, offsetMinutes, separator, utc, fractionDigits, finerDigits }) => {
    const local = new Date(ms + offsetMinutes * 60_000).toISOString();
    const fraction = `${local.slice(20, 23)}${finerDigits}`.slice(0, fractionDigits);
    const zone = offsetMinutes === 0 ? utc : `${offsetMinutes < 0 ? '-' : '+'}${twoDigits(Math.floor(Math.abs(offsetMinutes) / 60))}:${twoDigits(Math.abs(offsetMinutes) % 60)}`;
    const text = `${local.slice(0, 10)}${separator}${local.slice(11, 19)}${fraction === '' ? '' : `.${fraction}`}${zone}`;
    const named = ms - (ms % 1000 + 1000) % 1000 + Number(fraction.padEnd(3, '0').slice(0, 3));
    return { text, named };
  });

describe('offer:publish-snapshot updated_at', () => {
  it('takes every RFC 3339 form of an instant, and stores that instant to the millisecond', () => {
    fc.assert(
      fc.property(writtenInstant, ({ text, named }) => {
        const input = validateInput(publishSnapshot.input, { offer_id: OFFER_ID, updated_at: text, content }) as SnapshotInput;
        expect(snapshotPublishedEvent(input, NOW).updated_at).toBe(named);
      }),
      { numRuns: 500 },
    );
    for (const text of ['2026-11-01T00:00:00.123456Z', '2026-11-01t05:30:00.123456789+05:30', '2026-11-01 00:00:00.1234z']) {
      const input = validateInput(publishSnapshot.input, { offer_id: OFFER_ID, updated_at: text, content }) as SnapshotInput;
      expect(new Date(snapshotPublishedEvent(input, NOW).updated_at).toISOString(), text).toBe('2026-11-01T00:00:00.123Z');
    }
  });

  it('refuses a time that names no instant, saying what to send', () => {
    for (const text of ['2025-02-29T00:00:00Z', '2026-11-01T24:00:00Z', '2026-11-01T00:00:00+24:00', '0000-06-01T00:00:00Z']) {
      const input = validateInput(publishSnapshot.input, { offer_id: OFFER_ID, updated_at: text, content }) as SnapshotInput;
      let refusal: unknown;
      try {
        snapshotPublishedEvent(input, NOW);
      } catch (error) {
        refusal = error;
      }
      expect(refusal, text).toBeInstanceOf(CommandInputError);
      expect(refusal, text).toMatchObject({ field: 'updated_at', message: expect.stringMatching(/e\.g\. 2026-11-01T00:00:00Z/) });
    }
  });
});
