import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogBoundError, type LoggedEvent, type ReadBounds } from '../../platform/events/event-log.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { catalogEvents } from '../support/catalog-events.js';
import { readTopic } from '../support/read-topic.js';

for (const backend of ['kafka', 'sql'] as const) describeBoundedReads(backend);

const position = (event: Pick<LoggedEvent, 'partition' | 'offset'>) => `${event.partition}:${event.offset}`;

function describeBoundedReads(backend: 'kafka' | 'sql') {
  describe(`bounded reads of the ${backend} log`, () => {
    let t: TestRuntime;
    /** Every event of the topic as a subscriber sees it, the reference for each read. */
    let logged: LoggedEvent[];

    async function readAll(bounds: ReadBounds) {
      const read = await t.runtime.eventLog.read('catalog', bounds);
      const events: LoggedEvent[] = [];
      await read.forEach(async (batch) => {
        for (const event of batch.events) expect(event.partition).toBe(batch.partition);
        events.push(...batch.events);
      });
      return { spans: read.spans, events };
    }

    beforeAll(async () => {
      t = await createTestRuntime({ eventLog: backend });
      // Two appends some milliseconds apart, so a time between them splits the log.
      await t.runtime.eventLog.append('catalog', catalogEvents(300));
      const firstEnd = Date.now();
      while (Date.now() <= firstEnd + 5) await new Promise((resolve) => setImmediate(resolve));
      await t.runtime.eventLog.append('catalog', catalogEvents(200));
      logged = await readTopic(t.runtime.eventLog, 'catalog', (events) => events.length >= 500);
    });
    afterAll(async () => t?.close());

    it('without bounds: every event once, each partition in offset order, decoded as a subscriber sees it', async () => {
      const { spans, events } = await readAll({});
      expect(events).toHaveLength(500);
      expect(new Map(events.map((event) => [position(event), event]))).toEqual(new Map(logged.map((event) => [position(event), event])));
      for (const span of spans) {
        const offsets = events.filter((event) => event.partition === span.partition).map((event) => Number(event.offset));
        expect(offsets).toEqual(Array.from({ length: Number(span.to) - Number(span.from) }, (_, index) => Number(span.from) + index));
      }
    });

    it('between positions: from inclusive, to exclusive; partitions not named run from the start or to the end', async () => {
      const partition = logged[0]!.partition;
      const inPartition = logged.filter((event) => event.partition === partition).sort((a, b) => Number(a.offset) - Number(b.offset));
      const from = { topic: 'catalog', partition, offset: inPartition[10]!.offset };
      const to = { topic: 'catalog', partition, offset: inPartition[20]!.offset };
      const { events } = await readAll({ from: { positions: [from] }, to: { positions: [to] } });
      const expected = logged.filter((event) => event.partition !== partition || (BigInt(event.offset) >= 10n + BigInt(inPartition[0]!.offset) && BigInt(event.offset) < 20n + BigInt(inPartition[0]!.offset)));
      expect(events.map(position).sort()).toEqual(expected.map(position).sort());
    });

    it('between times: the events whose timestamps lie in [from, to)', async () => {
      const times = [...new Set(logged.map((event) => event.timestamp.getTime()))].sort((a, b) => a - b);
      expect(times.length).toBeGreaterThan(1);
      const cut = new Date(times[times.length - 1]!);
      const later = await readAll({ from: { time: cut } });
      expect(later.events.map(position).sort()).toEqual(logged.filter((event) => event.timestamp >= cut).map(position).sort());
      const earlier = await readAll({ to: { time: cut } });
      expect(earlier.events.map(position).sort()).toEqual(logged.filter((event) => event.timestamp < cut).map(position).sort());
      expect((await readAll({ from: { time: new Date(times[times.length - 1]! + 1) } })).events).toEqual([]);
    });

    it('where the log ended at a time: past every event logged in that millisecond, whatever finer time the log keeps', async () => {
      const times = [...new Set(logged.map((event) => event.timestamp.getTime()))].sort((a, b) => a - b);
      for (const time of [times[0]!, times[times.length - 1]!]) {
        const stops = await t.runtime.eventLog.offsetsAfter('catalog', new Date(time));
        for (const stop of stops) {
          const within = logged.filter((event) => event.partition === stop.partition && event.timestamp.getTime() <= time).map((event) => BigInt(event.offset));
          const expected = within.length === 0 ? undefined : within.reduce((a, b) => (a > b ? a : b)) + 1n;
          if (expected !== undefined) expect(BigInt(stop.offset), `partition ${stop.partition} at ${new Date(time).toISOString()}`).toBe(expected);
        }
      }
    });

    it('a time before 1970 comes before every event, to the millisecond before it (Kafka reads -1 and -2 as the end and the start)', async () => {
      const before1970 = [new Date(-1), new Date(-2), new Date(-3), new Date('1969-12-31T23:59:59Z'), new Date('0001-01-01T00:00:00Z')];
      const firstOffsets = new Map<number, bigint>();
      for (const event of logged) {
        const offset = BigInt(event.offset);
        if (!firstOffsets.has(event.partition) || offset < firstOffsets.get(event.partition)!) firstOffsets.set(event.partition, offset);
      }
      for (const time of before1970) {
        const at = time.toISOString();
        expect((await readAll({ from: { time } })).events.map(position).sort(), `from ${at}`).toEqual(logged.map(position).sort());
        expect((await readAll({ to: { time } })).events, `to ${at}`).toEqual([]);
        const stops = await t.runtime.eventLog.offsetsAfter('catalog', time);
        for (const [partition, first] of firstOffsets) {
          expect(BigInt(stops.find((stop) => stop.partition === partition)!.offset), `partition ${partition} as of ${at}`).toBe(first);
        }
      }
    });

    it('ends where the log ended when it opened, however much is appended meanwhile', async () => {
      const read = await t.runtime.eventLog.read('catalog', {});
      await t.runtime.eventLog.append('catalog', catalogEvents(50));
      let count = 0;
      await read.forEach(async (batch) => void (count += batch.events.length));
      expect(count).toBe(500);
    });

    it('an end before the start reads nothing', async () => {
      const partition = logged[0]!.partition;
      const { events, spans } = await readAll({ from: { positions: [{ topic: 'catalog', partition, offset: '5' }] }, to: { positions: [{ topic: 'catalog', partition, offset: '2' }] } });
      expect(spans.find((span) => span.partition === partition)).toMatchObject({ from: '5', to: '5' });
      expect(events.filter((event) => event.partition === partition)).toEqual([]);
    });

    it('a bound the topic cannot satisfy, or a topic that does not exist, is a LogBoundError naming it', async () => {
      const missingPartition = t.runtime.eventLog.read('catalog', { to: { positions: [{ topic: 'catalog', partition: 99, offset: '0' }] } });
      await expect(missingPartition).rejects.toBeInstanceOf(LogBoundError);
      await expect(missingPartition).rejects.toMatchObject({ bound: 'to', message: expect.stringMatching(/no partition 99/) });
      await expect(t.runtime.eventLog.read('no-such-topic', {})).rejects.toMatchObject({ bound: 'topic', message: expect.stringMatching(/topic no-such-topic does not exist/) });
    });

    it('a failing consumer of the batches fails the read', async () => {
      const read = await t.runtime.eventLog.read('catalog', {});
      await expect(read.forEach(async () => {
        throw new Error('disk full');
      })).rejects.toThrow('disk full');
    });
  });
}
