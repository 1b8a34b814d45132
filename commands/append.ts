import type { AppendedEvent, NewEvent } from '../platform/events/event-log.js';
import type { Runtime } from '../platform/runtime.js';
import { eventTopic, type EventTypeName, type EventValues } from '../schemas/generated/events.js';
import type { TopicName } from '../schemas/topics.js';
import { NUL } from '../platform/db/storable-text.js';
import { CommandInputError } from './command.js';

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
export async function appendEvents(runtime: Pick<Runtime, 'eventLog'>, topic: TopicName, events: NewEvent[]): Promise<AppendedEvent[]> {
  // A projection only reads the topics it subscribes to: an event on another topic would be lost.
  const stray = events.find((event) => eventTopic[event.type as EventTypeName] !== topic);
  if (stray) throw new Error(`${stray.type} is not an event of topic ${topic}`);
  for (const event of events) {
    const found = unstorableText(event.value);
    if (found) throw new CommandInputError(found.path, `contains ${UNSTORABLE[found.kind]}; remove it`);
  }
  return runtime.eventLog.append(topic, events);
}

const UNSTORABLE = {
  nul: 'a NUL character (U+0000), which no read model can store',
  surrogate: 'a lone UTF-16 surrogate (half of a character), which UTF-8 cannot carry: it would be stored as U+FFFD',
} as const;

/** An unpaired surrogate; a pair is one code point here (the u flag), so it is not matched. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The path of the first string an event's value holds that the log or the read models would not
 * keep as given, if any. Inputs are checked where they are read; this is the one place every
 * event passes, so a value no check caught never reaches the log (storable-text.ts says what
 * happens to one that did).
 */
function unstorableText(value: unknown, path = ''): { path: string; kind: keyof typeof UNSTORABLE } | undefined {
  if (typeof value === 'string') {
    if (value.includes(NUL)) return { path: path || 'value', kind: 'nul' };
    return LONE_SURROGATE.test(value) ? { path: path || 'value', kind: 'surrogate' } : undefined;
  }
  if (value === null || typeof value !== 'object' || value instanceof Date || ArrayBuffer.isView(value)) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const found = unstorableText(inner, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}
