import type { KafkaMessage } from 'kafkajs';
import type { EventCodec } from './codec.js';
import type { LoggedEvent } from './event-log.js';

/**
 * Decodes one partition's fetched messages into logged events (logical topic name, producer
 * timestamp), in order. Only a message of a schema not met before waits (for its writer schema);
 * the rest decode at once, without a promise each.
 */
export async function decodeMessages(codec: EventCodec, topic: string, partition: number, messages: KafkaMessage[]): Promise<LoggedEvent[]> {
  const events = new Array<LoggedEvent>(messages.length);
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index]!;
    const decoded = codec.decodeKnown(message.value!) ?? (await codec.decode(message.value!));
    events[index] = {
      topic,
      partition,
      offset: message.offset,
      key: message.key?.toString('utf8') ?? '',
      type: decoded.type,
      value: decoded.value,
      schemaId: decoded.schemaId,
      timestamp: new Date(Number(message.timestamp)),
    };
  }
  return events;
}
