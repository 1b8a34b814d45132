import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { applyBatch } from '../../platform/projection/runner.js';
import { catalogEntriesProjection } from '../../projections/catalog-entries/projection.js';
import { catalogChecksum } from '../../projections/catalog-entries/queries.js';
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
});
