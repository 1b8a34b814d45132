import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents, newEvent } from '../../commands/append.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { sqlCodec } from '../../platform/events/sql-codec.js';
import { toWireFormat } from '../../platform/events/wire-format.js';
import { startProjection, type RunningProjection } from '../../platform/projection/runner.js';
import { servesProjection } from '../../projections/serves/projection.js';
import { findServedInstances } from '../../projections/serves/queries.js';
import { EventType } from '../../schemas/generated/events.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { offerServed } from '../support/serves.js';
import { expectReplayAndExportToStopAt } from '../support/undecodable.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The embedded log's side of "An event that cannot be decoded" (README): an event not in the wire
 * format, of a schema id the embedded registry does not have, or cut short, stops its partition
 * there. The events before it are applied, the projection fails naming the event and why, and
 * the operator's step past it (the projection's offset moved to the next) lets it go on.
 */
describe('a projection on the embedded log meeting an event it cannot decode', () => {
  let t: TestRuntime;
  let running: RunningProjection | undefined;
  const errors: string[] = [];
  const start = async () => {
    running = await startProjection(servesProjection, { db: t.runtime.db, eventLog: t.runtime.eventLog, onError: (_name, error) => void errors.push(error.message) });
  };

  beforeAll(async () => {
    t = await createTestRuntime({ eventLog: 'sql' });
  });
  afterAll(async () => {
    await running?.stop();
    await t?.close();
  });

  const serveValue = () => ({ ...offerServed(t.runtime.config.linkBase, { application_id: 'app', offer_id: 'offer' }) });
  const serve = async () => {
    const value = serveValue();
    const [appended] = await appendEvents(t.runtime, 'serves', [newEvent(EventType.OfferServed, value.offer_instance_id, value)]);
    return { id: value.offer_instance_id, offset: BigInt(appended!.offset) };
  };
  /** Bytes straight into the log's table, as a writer that is not this service could have put them. */
  const appendRaw = (value: Buffer) =>
    t.runtime.db.transaction(async (tx) => {
      const topic = `${t.topicPrefix}serves`;
      const { rows } = await tx.query<{ next_offset: string }>('UPDATE event_log_partitions SET next_offset = next_offset + 1 WHERE topic = $1 AND partition = 0 RETURNING next_offset', [topic]);
      const offset = BigInt(rows[0]!.next_offset) - 1n;
      await tx.query('INSERT INTO event_log (topic, partition, "offset", key, value) VALUES ($1, 0, $2, $3, $4)', [topic, offset.toString(), 'poison', value]);
      return offset;
    });

  const poisons: [string, () => Promise<Buffer>, RegExp][] = [
    ['not in the wire format', async () => Buffer.from('not in the wire format'), /wire format/],
    ['of a schema id the embedded registry does not have', async () => toWireFormat(999_999, Buffer.from([2, 0x61])), /schema id 999999/],
    [
      'cut short',
      async () => {
        const bytes = await sqlCodec(t.runtime.db, loadSchemaCatalog()).encode(`${t.topicPrefix}serves`, EventType.OfferServed, serveValue());
        return bytes.subarray(0, bytes.length - 3);
      },
      /truncated/,
    ],
  ];

  it.each(poisons)('an event %s stops the partition exactly there, named, until the projection is moved past it', async (_kind, poison, why) => {
    const before = await serve();
    const at = await appendRaw(await poison());
    const after = await serve();
    errors.length = 0;
    await start();
    await waitFor(() => errors.some((message) => message.includes(`serves/0 offset ${at} cannot be decoded`) && why.test(message)), {
      what: `the projection to fail on the event, naming it (errors: ${errors.join(' | ')})`,
      timeoutMs: 30_000,
    });
    await waitFor(async () => (await findServedInstances(t.runtime.db, [before.id])).length === 1, { what: 'the event before it to be applied', timeoutMs: 30_000 });
    expect(await findServedInstances(t.runtime.db, [after.id])).toHaveLength(0);
    await running!.stop();
    running = undefined;

    const moved = await t.runtime.db.query(
      "UPDATE projection_offsets SET next_offset = $1 WHERE projection = 'serves' AND topic = 'serves' AND partition = 0 AND next_offset = $2",
      [String(at + 1n), String(at)],
    );
    expect(moved.rowCount).toBe(1);
    errors.length = 0;
    await start();
    await waitFor(async () => (await findServedInstances(t.runtime.db, [after.id])).length === 1, { what: 'the event after it to be applied', timeoutMs: 30_000 });
    expect(errors).toEqual([]);
    await running!.stop();
    running = undefined;
  });

  it('a replay and an export stop at such an event, naming it', async () => {
    const first = (await t.runtime.db.query<{ offset: string }>("SELECT min(\"offset\")::text AS offset FROM event_log WHERE topic = $1 AND key = 'poison'", [`${t.topicPrefix}serves`])).rows[0]!.offset;
    const named = new RegExp(`the event at serves/0 offset ${first} cannot be decoded \\(message is not in the Confluent wire format`);
    await expectReplayAndExportToStopAt(t, named);
  });
});
