import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { storedOffsets } from '../../platform/projection/offsets.js';
import { APPLIED_CHANNEL, type AppliedPosition } from '../../platform/projection/offsets.js';
import { applyBatch, applyBatches, applyInOneStatement } from '../../platform/projection/runner.js';
import { servesProjection } from '../../projections/serves/projection.js';
import { findServedInstances } from '../../projections/serves/queries.js';
import { EventType } from '../../schemas/generated/events.js';
import { offerServed } from '../support/serves.js';
import { catalogEntriesProjection } from '../../projections/catalog-entries/projection.js';
import { catalogChecksum } from '../support/read-model-checksums.js';
import { catalogEvents, expectedTotals } from '../support/catalog-events.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

describe('applyBatch on Postgres', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.drop());

  it('applies a batch once when two runners get it at the same moment (the offset row is locked)', async () => {
    const events = catalogEvents(400);
    const logged: LoggedEvent[] = events.map((event, index) => ({
      topic: 'catalog', partition: 0, offset: String(index), key: event.key, type: event.type, value: event.value, schemaId: 1, timestamp: new Date(0),
    }));
    const batch = { topic: 'catalog', partition: 0, events: logged };
    const applied = await Promise.all([
      applyBatch(database.db, catalogEntriesProjection, batch),
      applyBatch(database.db, catalogEntriesProjection, batch),
    ]);
    expect(applied.sort((a, b) => a - b)).toEqual([0, 400]);
    expect((await catalogChecksum(database.db)).tallied_events).toBe(String(expectedTotals(events).events));
  });

  describe('several partitions in one transaction', () => {
    const serves = (partition: number, from: number, count: number) => ({
      topic: 'serves',
      partition,
      events: Array.from({ length: count }, (_, index): LoggedEvent => {
        const value = offerServed('http://127.0.0.1:8080/l', { application_id: 'app', offer_id: 'offer' });
        return { topic: 'serves', partition, offset: String(from + index), key: value.offer_instance_id, type: EventType.OfferServed, value: { ...value }, schemaId: 1, timestamp: new Date(0) };
      }),
    });
    const positions = async () => Object.fromEntries((await storedOffsets(database.db, 'serves')).map((o) => [`${o.topic}:${o.partition}`, o.offset]));

    it('writes every partition\'s rows and moves each offset, and skips what was applied when redelivered', async () => {
      const [a, b, c] = [serves(0, 0, 5), serves(3, 0, 7), serves(5, 0, 2)];
      expect(await applyBatches(database.db, servesProjection, [b, a, c])).toEqual([7, 5, 2]);
      expect(await positions()).toMatchObject({ 'serves:0': '5', 'serves:3': '7', 'serves:5': '2' });
      const ids = [a, b, c].flatMap((batch) => batch.events.map((event) => event.key));
      expect((await findServedInstances(database.db, ids)).length).toBe(14);
      // A redelivery of a fetch half applied before (partition 0) and half new (partition 3, from offset 7).
      const more = serves(3, 7, 4);
      expect(await applyBatches(database.db, servesProjection, [a, { ...more, events: [...b.events, ...more.events] }])).toEqual([0, 4]);
      expect(await positions()).toMatchObject({ 'serves:0': '5', 'serves:3': '11' });
    });

    it('applies a fetch once when two runners get it at the same moment, whatever order they name the partitions in', async () => {
      const [a, b] = [serves(1, 0, 6), serves(2, 0, 9)];
      const applied = await Promise.all([applyBatches(database.db, servesProjection, [a, b]), applyBatches(database.db, servesProjection, [b, a])]);
      expect(applied.map((counts) => counts.reduce((sum, n) => sum + n, 0)).sort((x, y) => x - y)).toEqual([0, 15]);
      expect(await positions()).toMatchObject({ 'serves:1': '6', 'serves:2': '9' });
    });

    describe('in one statement (a projection that only inserts new rows)', () => {
      it('writes every partition\'s rows, moves each offset and announces it; a redelivery writes nothing again and never moves an offset back', async () => {
        const heard: AppliedPosition[] = [];
        // An empty payload only says "re-read" (the listening session opened).
        const unlisten = await database.db.listen(APPLIED_CHANNEL, (payload) => payload !== '' && heard.push(JSON.parse(payload) as AppliedPosition));
        try {
          const [a, b] = [serves(10, 0, 5), serves(11, 0, 7)];
          expect(await applyInOneStatement(database.db, servesProjection, [b, a])).toEqual([7, 5]);
          expect(await positions()).toMatchObject({ 'serves:10': '5', 'serves:11': '7' });
          const ids = [a, b].flatMap((batch) => batch.events.map((event) => event.key));
          const stored = await findServedInstances(database.db, ids);
          expect(stored.length).toBe(12);
          // Redelivered: the fetch above again with newer events of partition 11, then an old batch alone.
          const more = serves(11, 7, 4);
          await applyInOneStatement(database.db, servesProjection, [a, { ...more, events: [...b.events, ...more.events] }]);
          await applyInOneStatement(database.db, servesProjection, [{ ...a, events: a.events.slice(0, 2) }]);
          expect(await positions()).toMatchObject({ 'serves:10': '5', 'serves:11': '11' });
          expect(await findServedInstances(database.db, ids)).toEqual(stored);
          expect((await findServedInstances(database.db, more.events.map((event) => event.key))).length).toBe(4);
          await expect.poll(() => heard.length).toBeGreaterThanOrEqual(5);
          expect(heard.slice(0, 2)).toEqual([
            { projection: 'serves', topic: 'serves', partition: 10, next: '5' },
            { projection: 'serves', topic: 'serves', partition: 11, next: '7' },
          ]);
        } finally {
          await unlisten();
        }
      });

      it('applies a fetch once when two runners get it at the same moment, whatever order they name the partitions in', async () => {
        const [a, b] = [serves(12, 0, 6), serves(13, 0, 9)];
        await Promise.all([applyInOneStatement(database.db, servesProjection, [a, b]), applyInOneStatement(database.db, servesProjection, [b, a])]);
        expect(await positions()).toMatchObject({ 'serves:12': '6', 'serves:13': '9' });
        expect((await findServedInstances(database.db, [a, b].flatMap((batch) => batch.events.map((event) => event.key)))).length).toBe(15);
      });

      it('writes nothing, moves no offset and announces nothing when one partition\'s rows fail', async () => {
        const heard: string[] = [];
        const unlisten = await database.db.listen(APPLIED_CHANNEL, (payload) => payload !== '' && heard.push(payload));
        try {
          const good = serves(14, 0, 3);
          const bad = serves(15, 0, 1);
          (bad.events[0]!.value as { environment: string }).environment = 'not-an-environment';
          await expect(applyInOneStatement(database.db, servesProjection, [good, bad])).rejects.toThrow();
          // A later commit's announcement arrives after any of the failed one's would have.
          await applyInOneStatement(database.db, servesProjection, [serves(16, 0, 1)]);
          await expect.poll(() => heard.length).toBe(1);
          expect(JSON.parse(heard[0]!)).toMatchObject({ partition: 16 });
          expect(await positions()).not.toHaveProperty('serves:14');
          expect(await findServedInstances(database.db, good.events.map((event) => event.key))).toEqual([]);
        } finally {
          await unlisten();
        }
      });
    });

    it('writes nothing and moves no offset when one partition\'s rows fail', async () => {
      const good = serves(4, 0, 3);
      const bad = serves(6, 0, 1);
      (bad.events[0]!.value as { environment: string }).environment = 'not-an-environment';
      await expect(applyBatches(database.db, servesProjection, [good, bad])).rejects.toThrow();
      expect(await positions()).not.toHaveProperty('serves:4');
      expect(await findServedInstances(database.db, good.events.map((event) => event.key))).toEqual([]);
    });
  });
});
