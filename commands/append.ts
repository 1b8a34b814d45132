import { EventTooLargeError, type AppendOptions, type AppendedEvent, type NewEvent } from '../platform/events/event-log.js';
import type { Runtime } from '../platform/runtime.js';
import { eventTopic, type EventTypeName, type EventValues } from '../schemas/generated/events.js';
import type { TopicName } from '../schemas/topics.js';
import { CommandInputError } from './command.js';
import { UNSTORABLE, unstorableText } from './unstorable-text.js';

/** The event types a topic carries, e.g. `EventOf<'offers'>`. */
export type EventOf<T extends TopicName> = { [K in EventTypeName]: (typeof eventTopic)[K] extends T ? K : never }[EventTypeName];

/** One event, typed by its schema, with its partition key. */
export function newEvent<T extends EventTypeName>(type: T, key: string, value: EventValues[T]): NewEvent {
  return { key, type, value: { ...value } as Record<string, unknown> };
}

/**
 * The write side's one way into the log (commands and the seed): appends the events to `topic`
 * and resolves once they are durable, with each event's partition and offset. The topic exists:
 * every process creates its topics when it opens the log, never per append.
 */
export async function appendEvents(runtime: Pick<Runtime, 'eventLog'>, topic: TopicName, events: NewEvent[], options: AppendOptions = {}): Promise<AppendedEvent[]> {
  // A projection only reads the topics it subscribes to: an event on another topic would be lost.
  const stray = events.find((event) => eventTopic[event.type as EventTypeName] !== topic);
  if (stray) throw new Error(`${stray.type} is not an event of topic ${topic}`);
  for (const event of events) {
    const found = unstorableText(event.value);
    if (found) throw new CommandInputError(found.path, `contains ${UNSTORABLE[found.kind]}; remove it`);
  }
  return runtime.eventLog.append(topic, events, options).catch((error: unknown) => {
    // The same input is refused every time: the caller's to change (400, exit 2), not a retry's.
    if (error instanceof EventTooLargeError) throw new CommandInputError('input', error.message);
    throw error;
  });
}
