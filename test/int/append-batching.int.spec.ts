import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppendedEvent, LoggedEvent, NewEvent } from '../../platform/events/event-log.js';
import { EventType } from '../../schemas/generated/events.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { catalogEvents } from '../support/catalog-events.js';
import { readTopic } from '../support/read-topic.js';
import { offerServed } from '../support/serves.js';

const CALLERS = 100;
const EVENTS_PER_CALLER = 10;

/** What identifies an event of either topic when it is read back. */
const identity = (value: Record<string, unknown>) => String(value.event_id ?? value.offer_instance_id);

for (const backend of ['kafka', 'sql'] as const) describeConcurrentAppends(backend);

function describeConcurrentAppends(backend: 'kafka' | 'sql') {
  describe(`concurrent appends on the ${backend} log`, () => {
    let t: TestRuntime;

    beforeAll(async () => {
      t = await createTestRuntime({ eventLog: backend });
    });
    afterAll(async () => t?.close());

    it(`gives each of ${CALLERS} concurrent callers the offsets of exactly its own events, across topics and partitions`, async () => {
      const catalog = catalogEvents((CALLERS / 2) * EVENTS_PER_CALLER, 37);
      const calls = Array.from({ length: CALLERS }, (_, caller) => {
        if (caller % 2 === 0) {
          const start = (caller / 2) * EVENTS_PER_CALLER;
          return { topic: 'catalog', events: catalog.slice(start, start + EVENTS_PER_CALLER) };
        }
        const events: NewEvent[] = Array.from({ length: EVENTS_PER_CALLER }, () => {
          const serve = offerServed(t.config.linkBase, { offer_id: uuidv7(), application_id: uuidv7() });
          return { key: serve.offer_instance_id, type: EventType.OfferServed, value: { ...serve } };
        });
        return { topic: 'serves', events };
      });

      const writes = async () => (await t.runtime.metrics.eventLogWrites.get()).values[0]?.value ?? 0;
      const writesBefore = await writes();
      const appended: AppendedEvent[][] = await Promise.all(calls.map(({ topic, events }) => t.runtime.eventLog.append(topic, events)));
      // They shared writes (produce requests, or transactions): one each would be CALLERS of them.
      expect(await writes() - writesBefore).toBeLessThanOrEqual(CALLERS / 4);

      const total = (topic: string) => calls.filter((call) => call.topic === topic).length * EVENTS_PER_CALLER;
      const stored = new Map<string, LoggedEvent>();
      for (const topic of ['catalog', 'serves']) {
        for (const event of await readTopic(t.runtime.eventLog, topic, (events) => events.length >= total(topic))) {
          stored.set(`${topic}/${event.partition}/${event.offset}`, event);
        }
      }
      expect(stored.size).toBe(CALLERS * EVENTS_PER_CALLER);
      calls.forEach(({ topic, events }, caller) => {
        expect(appended[caller]).toHaveLength(events.length);
        events.forEach((event, index) => {
          const at = appended[caller]![index]!;
          expect(at.topic).toBe(topic);
          const found = stored.get(`${topic}/${at.partition}/${at.offset}`);
          expect({ caller, index, event: found && identity(found.value), key: found?.key }).toEqual({ caller, index, event: identity(event.value), key: event.key });
        });
      });
    });
  });
}
