import type { KafkaMessage } from 'kafkajs';
import { decodeUntilFailure, type DecodedEvent, type EventCodec } from './codec.js';
import type { LoggedEvent } from './event-log.js';
import { UndecodableEventError } from './undecodable-event.js';

const loggedEvent = (topic: string, partition: number, message: KafkaMessage, decoded: DecodedEvent): LoggedEvent => ({
  topic,
  partition,
  offset: message.offset,
  key: message.key?.toString('utf8') ?? '',
  type: decoded.type,
  value: decoded.value,
  schemaId: decoded.schemaId,
  timestamp: new Date(Number(message.timestamp)),
});

/**
 * Decodes one partition's fetched messages into logged events (logical topic name, producer
 * timestamp), in order, up to the first that cannot be decoded: the events before it, and that
 * failure, so a projection applies what comes before and stops exactly at it.
 */
export async function decodeMessagesUntilFailure(
  codec: EventCodec,
  topic: string,
  partition: number,
  messages: KafkaMessage[],
): Promise<{ events: LoggedEvent[]; undecodable?: UndecodableEventError }> {
  const { decoded, failure } = await decodeUntilFailure(
    codec,
    messages.map((message) => message.value!),
  );
  const events = decoded.map((event, index) => loggedEvent(topic, partition, messages[index]!, event));
  return failure ? { events, undecodable: new UndecodableEventError(topic, partition, messages[failure.index]!.offset, failure.error) } : { events };
}
