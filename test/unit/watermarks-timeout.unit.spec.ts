import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../platform/db/db.js';
import { openWatermarks } from '../../platform/projection/watermarks.js';

/**
 * awaitApplied answers false at its timeout even when reading the stored positions hangs (a
 * Postgres whose sessions stopped answering): the read counts against the timeout. The database
 * is a fake whose every query hangs; only the timing is under test.
 */
describe('awaitApplied when the positions cannot be read', () => {
  afterEach(() => vi.useRealTimers());

  it('resolves false once the timeout passes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const db = { listen: async () => async () => {}, query: () => new Promise(() => {}) } as unknown as Db;
    const watermarks = await openWatermarks(db);
    let answer: boolean | undefined;
    void watermarks.awaitApplied('ledger', [{ topic: 'postbacks', partition: 0, offset: '3' }], 2_000).then((applied) => (answer = applied));
    await vi.advanceTimersByTimeAsync(1_900);
    expect(answer).toBeUndefined();
    await vi.advanceTimersByTimeAsync(200);
    expect(answer).toBe(false);
  });
});
