import type { EventLog, TopicPartitionOffset } from '../events/event-log.js';
import { parseRfc3339, rfc3339Problem } from '../time/rfc3339.js';
import { positionKey, type Positions } from './positions.js';
import type { Projection } from './projection.js';

/** A replay asked for something impossible; `option` names what was wrong (as_of, until, projection, …). */
export class ReplayInputError extends Error {
  constructor(readonly option: string, message: string) {
    super(message);
    this.name = 'ReplayInputError';
  }
}

/** An RFC 3339 date-time with its offset (`2026-11-01T00:00:00Z`), to the millisecond. */
export function parseAsOf(text: string, now: Date = new Date()): Date {
  const time = parseRfc3339(text);
  if (!time) {
    throw new ReplayInputError('as_of', rfc3339Problem(text));
  }
  // A time to come would quietly give the read models as they are now, under a name that says otherwise.
  if (time.getTime() > now.getTime() + FUTURE_TOLERANCE_MS) {
    throw new ReplayInputError('as_of', `${text} is in the future (now is ${now.toISOString()}); for the read models as they are now, replay without a time and keep the result`);
  }
  return time;
}

/** How far past this machine's clock an --as-of may be (another machine's clock, a script's rounding). */
const FUTURE_TOLERANCE_MS = 60_000;

/** `topic:partition:offset,…`: the next offset per partition (events below it are replayed). */
export function parseUntil(text: string): TopicPartitionOffset[] {
  const positions = text.split(',').map((item) => item.trim()).filter((item) => item !== '');
  if (positions.length === 0) throw new ReplayInputError('until', 'must list topic:partition:offset positions, comma-separated');
  const seen = new Set<string>();
  return positions.map((item) => {
    const match = /^([A-Za-z0-9._-]+):(\d{1,9}):(\d{1,19})$/.exec(item);
    if (!match) throw new ReplayInputError('until', `${JSON.stringify(item)} is not topic:partition:offset (e.g. postbacks:0:1500)`);
    const [, topic, partition, offset] = match as unknown as [string, string, string, string];
    if (seen.has(`${topic}:${Number(partition)}`)) throw new ReplayInputError('until', `${topic}:${Number(partition)} is listed twice`);
    seen.add(`${topic}:${Number(partition)}`);
    return { topic, partition: Number(partition), offset: BigInt(offset).toString() };
  });
}

export interface PointInTime {
  asOf?: Date;
  until?: TopicPartitionOffset[];
}

export interface PointInTimePlan {
  /** The projections that can be rebuilt at that point, and where each partition stops. */
  projections: Projection[];
  bounds: Positions;
  /** Projections left out because --until gives no position for their topics. */
  skipped: { projection: string; missing: string[] }[];
}

/**
 * Where each partition stops for a rebuild "as it was then". `asOf`: before the first event
 * logged after that time. `until`: at the given offsets, which must cover every partition of
 * the projections' topics; with `explicit` false (every read model asked for), projections whose
 * topics are not listed at all are skipped instead.
 */
export async function pointInTimeBounds(eventLog: EventLog, projections: Projection[], at: PointInTime, explicit: boolean): Promise<PointInTimePlan> {
  const topics = [...new Set(projections.flatMap((projection) => projection.topics))];
  const ends = new Map<string, TopicPartitionOffset[]>();
  for (const topic of topics) ends.set(topic, await eventLog.endOffsets(topic));
  const stops = new Map<string, bigint>();
  if (at.asOf) {
    for (const topic of topics) for (const stop of await eventLog.offsetsAfter(topic, at.asOf)) stops.set(`${topic}:${stop.partition}`, BigInt(stop.offset));
  } else {
    for (const given of at.until ?? []) {
      const end = ends.get(given.topic)?.find((partition) => partition.partition === given.partition);
      if (!ends.has(given.topic)) throw new ReplayInputError('until', `no read model replayed here reads topic ${given.topic} (topics: ${topics.join(', ')})`);
      if (!end) throw new ReplayInputError('until', `topic ${given.topic} has no partition ${given.partition}`);
      if (BigInt(given.offset) > BigInt(end.offset)) throw new ReplayInputError('until', `${given.topic}:${given.partition}:${given.offset} is past the end of the log (${end.offset})`);
      stops.set(`${given.topic}:${given.partition}`, BigInt(given.offset));
    }
  }
  const plan: PointInTimePlan = { projections: [], bounds: new Map(), skipped: [] };
  for (const projection of projections) {
    const partitions = projection.topics.flatMap((topic) => ends.get(topic)!.map((end) => `${topic}:${end.partition}`));
    const missing = partitions.filter((partition) => !stops.has(partition));
    const listedTopic = projection.topics.some((topic) => [...stops.keys()].some((key) => key.startsWith(`${topic}:`)));
    if (missing.length > 0) {
      if (explicit || listedTopic) throw new ReplayInputError('until', `the ${projection.name} read model needs a position for ${missing.join(', ')}`);
      plan.skipped.push({ projection: projection.name, missing });
      continue;
    }
    plan.projections.push(projection);
    for (const partition of partitions) {
      const [topic, number] = partition.split(':') as [string, string];
      plan.bounds.set(positionKey(projection.name, topic, Number(number)), stops.get(partition)!);
    }
  }
  if (plan.projections.length === 0) throw new ReplayInputError('until', 'gives no position for the topics of any read model asked for');
  return plan;
}
