/**
 * Ids we mint (cards, clicks) are UUIDv7, whose first 48 bits are the minting time. An unknown id
 * minted shortly before its read model was last seen at the log's end (or at any time after) may
 * simply not be projected yet, so a reader waits for the read model to catch up before calling it
 * unknown; an id minted well before that is unknown. The window covers the time from minting to
 * the append's acknowledgement (Query gives up after 3 s) and clocks that differ between processes.
 */
export const RECENT_ID_WINDOW_MS = 30_000;

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The minting time (ms since the epoch) of `id` (canonical, lowercase) when it is a UUIDv7, else undefined. */
export function mintTimeOf(id: string): number | undefined {
  if (!UUID_V7.test(id)) return undefined;
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/**
 * Whether an unknown `id` may be one of ours not yet applied: a UUIDv7 minted no more than the
 * window before `seenAtEnd` (when its read model was last known to hold everything the log held)
 * and no more than the window after `now` (a later one was never minted by any clock we trust).
 * With `seenAtEnd` undefined (this process never saw the read model at the log's end) any UUIDv7
 * up to then may be pending: a process started while its projector was behind (a restart, a
 * deploy) took everything minted before its own start as settled, and answered a card served
 * a minute before, still unapplied, as unknown for good.
 */
export function mayBeUnapplied(id: string, seenAtEnd: number | undefined, now: number): boolean {
  const mintedAt = mintTimeOf(id);
  if (mintedAt === undefined || mintedAt > now + RECENT_ID_WINDOW_MS) return false;
  return seenAtEnd === undefined || mintedAt >= seenAtEnd - RECENT_ID_WINDOW_MS;
}
