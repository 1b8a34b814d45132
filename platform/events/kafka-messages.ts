import type { KafkaMessage } from 'kafkajs';
import { decodeInOrder, decodeUntilFailure, type DecodedEvent, type EventCodec } from './codec.js';
import type { LoggedEvent } from './event-log.js';

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

/** Decodes one partition's fetched messages into logged events (logical topic name, producer timestamp), in order. */
export async function decodeMessages(codec: EventCodec, topic: string, partition: number, messages: KafkaMessage[]): Promise<LoggedEvent[]> {
  const decoded = await decodeInOrder(
    codec,
    messages.map((message) => message.value!),
  );
  return messages.map((message, index) => loggedEvent(topic, partition, message, decoded[index]!));
}

/** An event of the log that cannot be decoded (not in the wire format, or a schema the registry does not have). */
class UndecodableEventError extends Error {
  constructor(readonly topic: string, readonly partition: number, readonly offset: string, cause: unknown) {
    super(
      `the event at ${topic}/${partition} offset ${offset} cannot be decoded (${(cause as Error).message ?? String(cause)}); it is tried again, and until it decodes its partition waits there (README, "An event that cannot be decoded")`,
      { cause },
    );
    this.name = 'UndecodableEventError';
  }
}

/**
 * decodeMessages up to the first message that cannot be decoded: the events before it, and that
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
