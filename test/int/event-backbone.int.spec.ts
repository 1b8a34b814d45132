import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startProjection } from '../../platform/projection/runner.js';
import { catalogEntriesProjection } from '../../projections/catalog-entries/projection.js';
import { catalogChecksum } from '../support/read-model-checksums.js';
import { EventType } from '../../schemas/generated/events.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { catalogEvents, expectedTotals } from '../support/catalog-events.js';
import { waitFor } from '../support/wait-for.js';

for (const backend of ['kafka', 'sql'] as const) describeRoundTrip(backend);

function describeRoundTrip(backend: 'kafka' | 'sql') {
  describe(`event backbone round trip on the ${backend} log`, () => {
    let t: TestRuntime;
    const events = catalogEvents(2_000);

    beforeAll(async () => {
      t = await createTestRuntime({ eventLog: backend });
    });
    afterAll(async () => t?.close());

    it('appends events of several types, and the projector builds exactly their rows', async () => {
      const { eventLog } = t.runtime;
      const appended = [];
      for (let start = 0; start < events.length; start += 500) {
        appended.push(...(await eventLog.append('catalog', events.slice(start, start + 500))));
      }
      // Offsets are unique and contiguous per partition.
      const byPartition = new Map<number, bigint[]>();
      for (const { partition, offset } of appended) byPartition.set(partition, [...(byPartition.get(partition) ?? []), BigInt(offset)]);
      for (const offsets of byPartition.values()) {
        offsets.forEach((offset, index) => expect(offset).toBe(offsets[0]! + BigInt(index)));
      }
      expect(appended).toHaveLength(events.length);

      const projection = await startProjection(catalogEntriesProjection, { db: t.runtime.db, eventLog });
      try {
        await waitFor(async () => (await projection.lag()).every((partition) => partition.lag === 0), { what: 'projection lag 0' });
      } finally {
        await projection.stop();
      }
      const totals = expectedTotals(events);
      const checksum = await catalogChecksum(t.runtime.db);
      expect(checksum).toMatchObject({
        entries: String(totals.entries),
        tallied_events: String(totals.events),
        amount_total: totals.amount,
      });
      // The last event of an entry decides its row.
      const lastForEntry0 = events.filter((event) => event.key === 'entry-0').at(-1)!;
      const { rows } = await t.runtime.db.query<{ removed: boolean; last_event_id: string }>(
        `SELECT removed, last_event_id FROM catalog_entries WHERE entry_id = 'entry-0'`,
      );
      expect(rows[0]).toEqual({
        removed: lastForEntry0.type === EventType.CatalogEntryRemoved,
        last_event_id: lastForEntry0.value.event_id,
      });
    });

    if (backend === 'kafka') it('stores Confluent wire-format values whose schema ids resolve in the registry', async () => {
      const stack = inject('stack');
      const kafka = new Kafka({ brokers: stack.kafkaBrokers, logLevel: logLevel.NOTHING });
      const consumer = kafka.consumer({ groupId: `${t.topicPrefix}raw-check` });
      const schemaIds = new Set<number>();
      let seen = 0;
      await consumer.connect();
      await consumer.subscribe({ topic: `${t.topicPrefix}catalog`, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          expect(message.value![0]).toBe(0);
          schemaIds.add(message.value!.readUInt32BE(1));
          seen += 1;
        },
      });
      try {
        await waitFor(() => seen >= events.length, { what: 'every raw message' });
      } finally {
        await consumer.disconnect();
      }
      expect(schemaIds.size).toBe(2);
      const names = [];
      for (const id of schemaIds) {
        const response = await fetch(`${stack.schemaRegistryUrl}/schemas/ids/${id}`);
        expect(response.status).toBe(200);
        const body = (await response.json()) as { schema: string };
        const schema = JSON.parse(body.schema) as { name: string; namespace: string };
        names.push(`${schema.namespace}.${schema.name}`);
      }
      expect(names.sort()).toEqual([EventType.CatalogEntryRecorded, EventType.CatalogEntryRemoved]);
      // Asked by name: the registry pages its subject list, and a long-lived one holds thousands.
      const subject = `${t.topicPrefix}catalog-${EventType.CatalogEntryRecorded}`;
      const versions = await fetch(`${stack.schemaRegistryUrl}/subjects/${encodeURIComponent(subject)}/versions`);
      expect(versions.status).toBe(200);
      expect(((await versions.json()) as number[]).length).toBeGreaterThan(0);
    });
  });
}
