import type { KafkaMessage } from 'kafkajs';
import type { EventCodec } from './codec.js';
import type { LoggedEvent } from './event-log.js';

/** Decodes one partition's fetched messages into logged events (logical topic name, producer timestamp). */
export function decodeMessages(codec: EventCodec, topic: string, partition: number, messages: KafkaMessage[]): Promise<LoggedEvent[]> {
  return Promise.all(
    messages.map(async (message) => {
      const decoded = await codec.decode(message.value!);
      return {
        topic,
        partition,
        offset: message.offset,
        key: message.key?.toString('utf8') ?? '',
        type: decoded.type,
        value: decoded.value,
        schemaId: decoded.schemaId,
        timestamp: new Date(Number(message.timestamp)),
      };
    }),
  );
}
