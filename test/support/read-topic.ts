import { randomBytes } from 'node:crypto';
import type { EventLog, LoggedEvent } from '../../platform/events/event-log.js';
import { waitFor } from './wait-for.js';

/**
 * The decoded events of a topic, read from its beginning with a consumer group of its own, once
 * `enough` holds for what was read (or fails after `timeoutMs`).
 */
export async function readTopic(eventLog: EventLog, topic: string, enough: (events: LoggedEvent[]) => boolean, timeoutMs = 60_000): Promise<LoggedEvent[]> {
  const events: LoggedEvent[] = [];
  const subscription = await eventLog.subscribe({
    group: `test-read.${topic}.${randomBytes(4).toString('hex')}`,
    topics: [topic],
    resumeFrom: async () => [],
    onBatch: async (batch) => void events.push(...batch.events),
  });
  try {
    await waitFor(() => enough(events), { what: `events on ${topic}`, timeoutMs });
    return [...events];
  } finally {
    await subscription.stop();
  }
}
