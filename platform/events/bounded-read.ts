import {
  LogBoundError,
  type BoundedRead,
  type EventBatch,
  type LogBound,
  type LoggedEvent,
  type PartitionSpan,
  type ReadBounds,
  type TopicPartitionOffset,
} from './event-log.js';

/** What one partition holds when a read opens: offsets from low (inclusive) to high (exclusive). */
export interface PartitionExtent {
  partition: number;
  low: bigint;
  high: bigint;
}

/** The three things a log backend answers for a bounded read; resolving the bounds is shared. */
export interface BoundedSource {
  /** Throws LogBoundError('topic') when the topic does not exist. */
  extents(): Promise<PartitionExtent[]>;
  /** Per partition, the offset of the first event whose timestamp is at or after `time` (high when none). */
  offsetsAt(time: Date): Promise<Map<number, bigint>>;
  forEach(spans: PartitionSpan[], onBatch: (batch: EventBatch) => Promise<void>): Promise<void>;
}

export async function openBoundedRead(topic: string, bounds: ReadBounds, source: BoundedSource): Promise<BoundedRead> {
  const extents = await source.extents();
  const [from, to] = await Promise.all([
    bounds.from && boundOffsets(topic, 'from', bounds.from, extents, source),
    bounds.to && boundOffsets(topic, 'to', bounds.to, extents, source),
  ]);
  const spans = resolveSpans(extents, from, to);
  return { topic, spans, forEach: (onBatch) => source.forEach(spans, onBatch) };
}

function boundOffsets(topic: string, name: 'from' | 'to', bound: LogBound, extents: PartitionExtent[], source: BoundedSource) {
  return 'time' in bound ? source.offsetsAt(bound.time) : Promise.resolve(positionOffsets(topic, name, bound.positions, extents));
}

/** Given positions by partition, checked against the topic (no other topic, no missing partition, none twice, none past the end). */
export function positionOffsets(topic: string, bound: 'from' | 'to', positions: TopicPartitionOffset[], extents: PartitionExtent[]): Map<number, bigint> {
  const partitions = new Set(extents.map((extent) => extent.partition));
  const offsets = new Map<number, bigint>();
  for (const position of positions) {
    if (position.topic !== topic) throw new LogBoundError(bound, `${position.topic}:${position.partition}:${position.offset} is not a position of topic ${topic}`);
    if (!partitions.has(position.partition)) {
      throw new LogBoundError(bound, `topic ${topic} has no partition ${position.partition} (it has ${describePartitions([...partitions])})`);
    }
    if (offsets.has(position.partition)) throw new LogBoundError(bound, `partition ${position.partition} of ${topic} is given twice`);
    // As a replay's --until: a position the log has not reached is a mistake (another log, a typo), not the end.
    const { high } = extents.find((extent) => extent.partition === position.partition)!;
    if (BigInt(position.offset) > high) throw new LogBoundError(bound, `${position.topic}:${position.partition}:${position.offset} is past the end of the log (${high})`);
    offsets.set(position.partition, BigInt(position.offset));
  }
  return offsets;
}

/**
 * One span per partition, in partition order: from the given start (else the beginning) to the
 * given end (else the end), both kept within what the partition holds; an end before its start
 * makes an empty span.
 */
export function resolveSpans(extents: PartitionExtent[], from?: Map<number, bigint>, to?: Map<number, bigint>): PartitionSpan[] {
  const clamp = (value: bigint, { low, high }: PartitionExtent) => (value < low ? low : value > high ? high : value);
  return [...extents]
    .sort((a, b) => a.partition - b.partition)
    .map((extent) => {
      const start = clamp(from?.get(extent.partition) ?? extent.low, extent);
      const end = clamp(to?.get(extent.partition) ?? extent.high, extent);
      return { partition: extent.partition, from: start.toString(), to: (end < start ? start : end).toString() };
    });
}

/** For a log read a page at a time (the embedded one): every span in order, pages cut at the span's end. */
export async function forEachPage(
  topic: string,
  spans: PartitionSpan[],
  readPage: (partition: number, from: bigint, below: bigint) => Promise<LoggedEvent[]>,
  onBatch: (batch: EventBatch) => Promise<void>,
): Promise<void> {
  for (const span of spans) {
    const end = BigInt(span.to);
    let cursor = BigInt(span.from);
    while (cursor < end) {
      const events = (await readPage(span.partition, cursor, end)).filter((event) => BigInt(event.offset) < end);
      // Offsets below the end are all there (gapless); an empty page means the log is shorter than
      // it said, and stopping is better than asking forever.
      if (events.length === 0) break;
      await onBatch({ topic, partition: span.partition, events });
      cursor = BigInt(events[events.length - 1]!.offset) + 1n;
    }
  }
}

function describePartitions(partitions: number[]): string {
  const sorted = [...partitions].sort((a, b) => a - b);
  if (sorted.length === 0) return 'none';
  return sorted.length === 1 ? `only ${sorted[0]}` : `${sorted[0]}-${sorted[sorted.length - 1]}`;
}
