/**
 * Ids we mint (cards, clicks) are UUIDv7, whose first 48 bits are the minting time. An unknown id
 * minted this recently may simply not be projected yet, so a reader waits for its read model to
 * catch up before calling it unknown; an older unknown id is unknown.
 */
export const RECENT_ID_WINDOW_MS = 30_000;

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Whether `id` (canonical, lowercase) is a UUIDv7 whose embedded time is within the recent window of `now` (either side: clocks differ). */
export function isRecentlyMinted(id: string, now: Date): boolean {
  if (!UUID_V7.test(id)) return false;
  const mintedAt = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  return Math.abs(now.getTime() - mintedAt) <= RECENT_ID_WINDOW_MS;
}
