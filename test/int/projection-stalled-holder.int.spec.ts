import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { storedOffsets } from '../../platform/projection/offsets.js';
import type { Projection } from '../../platform/projection/projection.js';
import { applyBatch, applyBatches, applyInOneStatement } from '../../platform/projection/runner.js';
import { catalogEntriesProjection } from '../../projections/catalog-entries/projection.js';
import { servesProjection } from '../../projections/serves/projection.js';
import { findServedInstances } from '../../projections/serves/queries.js';
import { EventType } from '../../schemas/generated/events.js';
import { catalogEvents } from '../support/catalog-events.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { catalogChecksum } from '../support/read-model-checksums.js';
import { offerServed } from '../support/serves.js';

/**
 * A projector that stalls in the middle of a batch (SIGSTOP, a frozen container, an event loop
 * that stopped) keeps its Postgres session open, and with it the lock on the partition's offset
 * row; its consumer group hands the partition to another projector once its session times out.
 * The other projector's batch must not wait behind that lock for as long as the stall lasts:
 * here the stalled batch is one whose apply does not go on until the test lets it (what the
 * server sees of a paused process: a transaction open and idle).
 */
describe('a batch whose offset rows a stalled runner holds', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => database?.drop());

  const catalogBatch = (partition: number, from: number) => ({
    topic: 'catalog',
    partition,
    events: catalogEvents(50).map((event, index): LoggedEvent => ({
      topic: 'catalog', partition, offset: String(from + index), key: event.key, type: event.type, value: event.value, schemaId: 1, timestamp: new Date(0),
    })),
  });
  /** Stalled processes still waiting to be resumed when a test ends (so the database can be dropped). */
  const stalledProcesses = new Set<() => void>();
  afterEach(() => {
    for (const resume of stalledProcesses) resume();
    stalledProcesses.clear();
  });

  /** The projection, whose apply holds its transaction open until `resume` (the stalled process continued). */
  function stalling(projection: Projection) {
    let holding!: () => void;
    let resume!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    stalledProcesses.add(resume);
    const stalled: Projection = {
      ...projection,
      async apply(tx, events) {
        holding();
        await resumed;
        await projection.apply(tx, events);
      },
    };
    return { stalled, held, resume };
  }

  it('is applied by the runner given the partition once the stalled runner has held it too long; the stalled batch then fails, and every event is applied once', async () => {
    await applyBatch(database.db, catalogEntriesProjection, catalogBatch(0, 0));
    const batch = catalogBatch(0, 50);
    const { stalled, held, resume } = stalling(catalogEntriesProjection);
    const stalledBatch = applyBatch(database.db, stalled, batch);
    const stalledOutcome = stalledBatch.then(() => 'applied', () => 'failed');
    await held;

    expect(await applyBatch(database.db, catalogEntriesProjection, batch)).toBe(50);
    expect(await storedOffsets(database.db, 'catalog-entries')).toEqual([{ topic: 'catalog', partition: 0, offset: '100' }]);

    // The stalled process continues: its session was ended, so its batch is not applied again.
    resume();
    expect(await stalledOutcome).toBe('failed');
    expect((await catalogChecksum(database.db)).tallied_events).toBe('100');
  }, 60_000);

  it('is applied in one statement (a small fetch of serves) once the stalled runner of a large one has held it too long', async () => {
    const serves = (from: number, count: number) => ({
      topic: 'serves',
      partition: 2,
      events: Array.from({ length: count }, (_, index): LoggedEvent => {
        const value = offerServed('http://127.0.0.1:8080/l', { application_id: 'app', offer_id: 'offer' });
        return { topic: 'serves', partition: 2, offset: String(from + index), key: value.offer_instance_id, type: EventType.OfferServed, value: { ...value }, schemaId: 1, timestamp: new Date(0) };
      }),
    });
    await applyInOneStatement(database.db, servesProjection, [serves(0, 1)]);
    const large = serves(1, 300);
    const { stalled, held, resume } = stalling(servesProjection);
    const stalledOutcome = applyBatches(database.db, stalled, [large]).then(() => 'applied', () => 'failed');
    await held;

    // The partition's new owner reads it from the start, a fetch small enough for one statement.
    expect(await applyInOneStatement(database.db, servesProjection, [{ ...large, events: large.events.slice(0, 100) }])).toEqual([100]);
    resume();
    expect(await stalledOutcome).toBe('failed');
    expect(await storedOffsets(database.db, 'serves')).toEqual([{ topic: 'serves', partition: 2, offset: '101' }]);
    expect((await findServedInstances(database.db, large.events.map((event) => event.key))).length).toBe(100);
  }, 60_000);

  it('leaves a holder that is not a batch of the projection alone, and fails the wait saying so', async () => {
    await applyBatch(database.db, catalogEntriesProjection, catalogBatch(1, 0));
    // An operator's session holding the row (moving an offset by hand with the projector running).
    const operator = new pg.Client({ connectionString: database.url });
    await operator.connect();
    try {
      await operator.query('BEGIN');
      await operator.query("SELECT * FROM projection_offsets WHERE projection = 'catalog-entries' AND topic = 'catalog' AND partition = 1 FOR UPDATE");
      const more = catalogBatch(1, 50);
      await expect(applyBatch(database.db, catalogEntriesProjection, more)).rejects.toThrow(/held by another session that is not a stalled batch/);
      // Its session is still there: the transaction commits.
      await operator.query('COMMIT');
    } finally {
      await operator.end();
    }
  }, 60_000);
});
