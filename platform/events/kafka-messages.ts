import type { KafkaMessage } from 'kafkajs';
import { decodeInOrder, type EventCodec } from './codec.js';
import type { LoggedEvent } from './event-log.js';

/** Decodes one partition's fetched messages into logged events (logical topic name, producer timestamp), in order. */
export async function decodeMessages(codec: EventCodec, topic: string, partition: number, messages: KafkaMessage[]): Promise<LoggedEvent[]> {
  const decoded = await decodeInOrder(
    codec,
    messages.map((message) => message.value!),
  );
  return messages.map((message, index) => ({
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? '',
    type: decoded[index]!.type,
    value: decoded[index]!.value,
    schemaId: decoded[index]!.schemaId,
    timestamp: new Date(Number(message.timestamp)),
  }));
}
