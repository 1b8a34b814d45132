import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotPublishedEvent } from '../../commands/offers/publish-snapshot.js';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { offersProjection } from '../../projections/offers/projection.js';
import { EventType } from '../../schemas/generated/events.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';

// The offers projection's own guard beside the publish command's check: a snapshot id belongs to
// the offer it was first published for, so an event naming it for another offer changes nothing.
let t: TestRuntime;
const now = new Date('2026-03-01T12:00:00Z');
const FIRST = '01939c5e-7b1a-7c3e-9f00-0000000005a1';
const OTHER = '01939c5e-7b1a-7c3e-9f00-0000000005a2';
const SNAPSHOT = '00000000-0000-7000-8000-0000000005a3';
let offset = 0;

/** One RemoteSnapshotPublished as the log would hand it over, at the next offset. */
function published(offer_id: string, language: string, snapshot_id = SNAPSHOT): LoggedEvent {
  const value = snapshotPublishedEvent({
    offer_id, snapshot_id, language, active: true, updated_at: '2026-02-01T00:00:00Z',
    content: { offer_info: { title: language, category: { id: 'c' }, description: 'd' }, entity: { id: 'e', name: 'E', type: 'merchant' }, goals: [] },
  }, now);
  return { topic: 'offers', partition: 0, offset: String(offset++), key: offer_id, type: EventType.RemoteSnapshotPublished, value: value as unknown as Record<string, unknown>, schemaId: 1, timestamp: now };
}

const apply = (events: LoggedEvent[]) => t.runtime.db.transaction((tx) => offersProjection.apply(tx, events));
const owner = async (snapshot = SNAPSHOT) => (await t.runtime.db.query<{ offer_id: string; language: string }>('SELECT offer_id, language FROM offer_snapshots WHERE snapshot_id = $1', [snapshot])).rows;

beforeAll(async () => {
  t = await createTestRuntime();
});
afterAll(() => t?.close());

describe('offer snapshots', () => {
  it('stay with the offer they were first published for', async () => {
    await apply([published(FIRST, 'en')]);
    expect(await owner()).toEqual([{ offer_id: FIRST, language: 'en' }]);
    await apply([published(OTHER, 'fr')]);
    expect(await owner()).toEqual([{ offer_id: FIRST, language: 'en' }]);
    // Its own offer still replaces it.
    await apply([published(FIRST, 'de')]);
    expect(await owner()).toEqual([{ offer_id: FIRST, language: 'de' }]);
  });

  it('stay with their first offer within one batch too, as a replay folding the log at once applies it', async () => {
    const snapshot = '00000000-0000-7000-8000-0000000005a4';
    await apply([published(FIRST, 'en', snapshot), published(OTHER, 'fr', snapshot)]);
    expect(await owner(snapshot)).toEqual([{ offer_id: FIRST, language: 'en' }]);
  });
});
