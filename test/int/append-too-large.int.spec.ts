import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { appendEvents } from '../../commands/append.js';
import { CommandInputError } from '../../commands/command.js';
import type { EventLog, NewEvent } from '../../platform/events/event-log.js';
import { kafkaEventLog } from '../../platform/events/kafka-event-log.js';
import { registryCodec } from '../../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { WIRE_HEADER_LENGTH } from '../../platform/events/wire-format.js';
import { catalogEvents } from '../support/catalog-events.js';

/**
 * An event larger than its topic takes (max.message.bytes; Kafka's default about 1 MiB, which an
 * offer upsert's free-form maps given by file reach) is refused before anything is sent, with an
 * input error naming the limit: the broker's own refusal named neither, and was answered as a
 * failure of the log (a 503 saying to retry, exit 1) that every retry met again.
 */
const stack = inject('stack');
const schemas = loadSchemaCatalog();
let eventLog: EventLog;

beforeAll(async () => {
  eventLog = await kafkaEventLog(registryCodec(stack.schemaRegistryUrl, schemas), { brokers: stack.kafkaBrokers, topicPrefix: `too-large-${randomBytes(4).toString('hex')}.` });
  await eventLog.ensureTopics([{ topic: 'catalog', partitions: 2 }]);
});
afterAll(async () => {
  await eventLog?.close();
});

/** A catalog event whose key and encoded value add up to exactly `bytes`. */
function eventOfSize(bytes: number): NewEvent {
  const event = catalogEvents(1)[0]!;
  const encoded = (name: string) => WIRE_HEADER_LENGTH + schemas.get(event.type)!.avroType.toBuffer({ ...event.value, name }).length + Buffer.byteLength(event.key);
  let name = 'x'.repeat(Math.max(1, bytes - encoded('x')));
  // The string's length prefix grows by a byte now and then: trim to the exact size.
  while (encoded(name) > bytes) name = name.slice(1);
  expect(encoded(name)).toBe(bytes);
  return { ...event, value: { ...event.value, name } };
}

const total = async () => (await eventLog.endOffsets('catalog')).reduce((sum, end) => sum + Number(end.offset), 0);

it("refuses an event larger than the topic's max.message.bytes, naming the limit, and writes nothing", async () => {
  const before = await total();
  const refused = appendEvents({ eventLog }, 'catalog', [eventOfSize(1_100_000)]);
  await expect(refused).rejects.toBeInstanceOf(CommandInputError);
  await expect(refused).rejects.toThrow(/is 1100000 bytes encoded, more than the \d+ bytes topic catalog takes for one event \(its max\.message\.bytes/);
  expect(await total()).toBe(before);
});

it('takes the largest event the limit allows (the broker agrees with the sum)', async () => {
  const refusal = await appendEvents({ eventLog }, 'catalog', [eventOfSize(2_000_000)]).then(
    () => '',
    (error: Error) => error.message,
  );
  const limit = Number(/more than the (\d+) bytes/.exec(refusal)?.[1]);
  expect(limit).toBeGreaterThan(1_000_000);
  const [appended] = await appendEvents({ eventLog }, 'catalog', [eventOfSize(limit)]);
  expect(appended!.topic).toBe('catalog');
  await expect(appendEvents({ eventLog }, 'catalog', [eventOfSize(limit + 1)])).rejects.toBeInstanceOf(CommandInputError);
});
