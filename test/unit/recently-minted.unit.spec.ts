import fc from 'fast-check';
import { v4 as uuidv4 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { RECENT_ID_WINDOW_MS, mayBeUnapplied, mintTimeOf } from '../../platform/ids/recently-minted.js';

/** A canonical UUIDv7 carrying `mintedAt` (ms since the epoch). */
function v7At(mintedAt: number, tail = 'abc-8def-0123456789ab'): string {
  const hex = mintedAt.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7${tail}`;
}

const NOW = Date.UTC(2026, 10, 27, 12);
const MINUTE = 60_000;

describe('mintTimeOf', () => {
  it('reads the millisecond a UUIDv7 carries, and nothing from other ids', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 48 - 1 }), (mintedAt) => mintTimeOf(v7At(mintedAt)) === mintedAt));
    expect(mintTimeOf(uuidv4())).toBeUndefined();
    expect(mintTimeOf(v7At(NOW).toUpperCase())).toBeUndefined();
  });
});

describe('mayBeUnapplied: an unknown id may be a write not applied yet', () => {
  it('when minted after (or within the window before) the read model was last seen at the log\'s end', () => {
    const seenAtEnd = NOW - 5 * MINUTE;
    // A projector down for five minutes: a card minted a minute ago is not known to be unknown.
    expect(mayBeUnapplied(v7At(NOW - MINUTE), seenAtEnd, NOW)).toBe(true);
    expect(mayBeUnapplied(v7At(seenAtEnd - RECENT_ID_WINDOW_MS + 1), seenAtEnd, NOW)).toBe(true);
    // Minted well before the read model held the whole log: unknown for good.
    expect(mayBeUnapplied(v7At(seenAtEnd - RECENT_ID_WINDOW_MS - 1), seenAtEnd, NOW)).toBe(false);
  });

  it('never for an id no clock we trust minted yet, nor for one that is not a UUIDv7', () => {
    expect(mayBeUnapplied(v7At(NOW + RECENT_ID_WINDOW_MS - 1), NOW, NOW)).toBe(true);
    expect(mayBeUnapplied(v7At(NOW + RECENT_ID_WINDOW_MS + 1), NOW, NOW)).toBe(false);
    expect(mayBeUnapplied(uuidv4(), undefined, NOW)).toBe(false);
  });

  it('takes any UUIDv7 up to now as maybe pending while the read model was never seen at the end here', () => {
    // A process started while its projector was behind knows nothing settled yet, however old.
    const now = Date.now();
    expect(mayBeUnapplied(v7At(Date.UTC(2023, 6, 1)), undefined, now)).toBe(true);
    expect(mayBeUnapplied(v7At(now - 1_000), undefined, now)).toBe(true);
    expect(mayBeUnapplied(v7At(now + RECENT_ID_WINDOW_MS + 1), undefined, now)).toBe(false);
  });

  it('a later sighting at the log\'s end never turns a settled id pending again', () => {
    fc.assert(
      fc.property(fc.integer({ min: -10 * MINUTE, max: 10 * MINUTE }), fc.integer({ min: 0, max: 10 * MINUTE }), fc.integer({ min: 0, max: 10 * MINUTE }), (minted, seen, later) => {
        const id = v7At(NOW + minted);
        const earlier = NOW - seen;
        return !(mayBeUnapplied(id, earlier + later, NOW) && !mayBeUnapplied(id, earlier, NOW));
      }),
    );
  });
});
