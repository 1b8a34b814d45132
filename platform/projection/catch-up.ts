import { PAST_DEADLINE, withinDeadline } from '../async/deadline.js';
import type { TopicPartitionOffset } from '../events/event-log.js';
import type { Runtime } from '../runtime.js';
import type { Projection } from './projection.js';

/** A wait in seconds as a person reads it: a leftover budget of 1009 ms is "1 s", 2500 ms "2.5 s". */
const seconds = (ms: number) => Number((ms / 1000).toFixed(1));

/** The read models did not reach the log's end in time (nothing projecting, or far behind). */
export class ReadModelsBehindError extends Error {
  constructor(projection: string, timeoutMs: number, message?: string) {
    super(message ?? `the ${projection} read model did not catch up with the log within ${seconds(timeoutMs)} s; is a projector running? retry shortly`);
    this.name = 'ReadModelsBehindError';
  }
}

/**
 * The log did not say where it ends in time (a hung broker: the Kafka client retries its requests
 * for minutes), so whether the read models are there cannot be known: answered as they are when
 * behind, a retryable refusal.
 */
export class LogEndUnknownError extends ReadModelsBehindError {
  constructor(projection: string, timeoutMs: number) {
    super(projection, timeoutMs, `the event log did not say where the topics of the ${projection} read model end within ${seconds(timeoutMs)} s; is it answering? retry shortly`);
    this.name = 'LogEndUnknownError';
  }
}

/**
 * For `.catch()` after a wait for the read models: ReadModelsBehindError becomes the caller's own
 * answer (a route's retryable 503), anything else is rethrown as it is.
 */
export function behindAs(answer: () => Error): (error: unknown) => never {
  return (error) => {
    throw error instanceof ReadModelsBehindError ? answer() : error;
  };
}

/** The last event of every partition of the projection's topics, as it is now. */
async function lastEvents(runtime: Runtime, projection: Projection): Promise<TopicPartitionOffset[]> {
  const ends = (await Promise.all(projection.topics.map((topic) => runtime.eventLog.endOffsets(topic)))).flat();
  return ends.filter((end) => BigInt(end.offset) > 0n).map((end) => ({ ...end, offset: (BigInt(end.offset) - 1n).toString() }));
}

/** Per runtime and projection: when a wait last began that ended with it at the log's end. */
const seenAtEnd = new WeakMap<Runtime, Map<string, number>>();

/**
 * The latest time (ms since the epoch, this process's clock) by which all the projections had
 * applied everything the log then held, as far as this process knows from its own waits;
 * undefined when it never saw one of them there. Everything appended before it is readable.
 */
export function lastSeenAtEnd(runtime: Runtime, projections: Projection[]): number | undefined {
  const seen = seenAtEnd.get(runtime);
  let earliest: number | undefined;
  for (const projection of projections) {
    const at = seen?.get(projection.name);
    if (at === undefined) return undefined;
    earliest = earliest === undefined ? at : Math.min(earliest, at);
  }
  return earliest;
}

/**
 * Resolves once every projection has applied everything the log held when it was called, so a
 * command that checks references sees every record written before it. Throws
 * ReadModelsBehindError after `timeoutMs` (LogEndUnknownError when the log's end was not known by then).
 */
export async function awaitCaughtUp(runtime: Runtime, projections: Projection[], timeoutMs: number): Promise<void> {
  const watermarks = await runtime.watermarks();
  // The wall clock dates the wait (compared with the times ids were minted at); the budget runs on
  // the monotonic clock, so a step of the wall clock neither cuts the wait to nothing nor stretches it.
  const startedAt = Date.now();
  const deadline = performance.now() + timeoutMs;
  for (const projection of projections) {
    const events = await withinDeadline(lastEvents(runtime, projection), deadline - performance.now());
    if (events === PAST_DEADLINE) throw new LogEndUnknownError(projection.name, timeoutMs);
    if (!(await watermarks.awaitApplied(projection.name, events, Math.max(0, deadline - performance.now())))) {
      throw new ReadModelsBehindError(projection.name, timeoutMs);
    }
  }
  let seen = seenAtEnd.get(runtime);
  if (!seen) seenAtEnd.set(runtime, (seen = new Map()));
  for (const projection of projections) seen.set(projection.name, Math.max(seen.get(projection.name) ?? 0, startedAt));
}
