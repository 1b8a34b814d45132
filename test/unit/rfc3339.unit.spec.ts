import { describe, expect, it } from 'vitest';
import { parseRfc3339 } from '../../platform/time/rfc3339.js';

describe('parseRfc3339', () => {
  it('reads a date-time with its offset, to the millisecond', () => {
    expect(parseRfc3339('2026-11-01T00:00:00Z')?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseRfc3339('2026-11-01t01:30:00.123456+01:30')?.toISOString()).toBe('2026-11-01T00:00:00.123Z');
    expect(parseRfc3339('2026-11-01 00:00:00-05:00')?.toISOString()).toBe('2026-11-01T05:00:00.000Z');
    expect(parseRfc3339('2028-02-29T12:00:00Z')?.toISOString()).toBe('2028-02-29T12:00:00.000Z');
    expect(parseRfc3339('0050-06-01T00:00:00Z')?.toISOString()).toBe('0050-06-01T00:00:00.000Z');
    expect(parseRfc3339('9999-12-31T23:59:59.999Z')?.toISOString()).toBe('9999-12-31T23:59:59.999Z');
  });

  it('refuses a time that names no instant instead of rolling it over', () => {
    for (const text of [
      '2026-02-30T00:00:00Z', // no 30 February
      '2026-02-29T00:00:00Z', // not a leap year
      '1900-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-11-00T00:00:00Z',
      '2026-11-01T24:00:00Z',
      '2026-11-01T23:60:00Z',
      '2026-11-01T23:59:60Z',
      '2026-11-01T00:00:00+24:00',
      '2026-11-01T00:00:00+01:60',
      '9999-12-31T23:30:00-01:00', // year 10000 in UTC
      '0000-06-01T00:00:00Z',
      '0001-01-01T00:30:00+01:00', // year 0 in UTC
      '2026-11-01T00:00:00', // no offset
      '2026-11-01',
      'yesterday',
      '',
    ]) {
      expect(parseRfc3339(text), text).toBeUndefined();
    }
  });
});
