/**
 * The append-only log every state change goes through. Two implementations: Kafka with a
 * schema registry (production) and a table in Postgres (the embedded default). Projections and
 * routes only see this interface. Topic names here are logical (`accounts`); an implementation
 * adds the configured prefix.
 */
export interface NewEvent {
  /** Partition key: events with one key keep their order. */
  key: string;
  /** Full name of the event's Avro record, e.g. `offerledger.catalog.CatalogEntryRecorded`. */
  type: string;
  value: Record<string, unknown>;
}

export interface AppendedEvent {
  topic: string;
  partition: number;
  /** Decimal string: offsets are int64. */
  offset: string;
}

export interface LoggedEvent<V = Record<string, unknown>> {
  topic: string;
  partition: number;
  offset: string;
  key: string;
  type: string;
  value: V;
  /** Registry id of the writer schema (Confluent wire format). */
  schemaId: number;
  timestamp: Date;
}

export interface EventBatch {
  topic: string;
  partition: number;
  events: LoggedEvent[];
}

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  offset: string;
}

export interface SubscribeOptions {
  /** Consumer group; one per projection. */
  group: string;
  topics: string[];
  /**
   * Where to resume, read from the projection's own offset table. Partitions not listed start
   * at the beginning. The log may still redeliver earlier events; the runner skips them.
   */
  resumeFrom(): Promise<TopicPartitionOffset[]>;
  /** Called one batch at a time per partition; the log commits its own cursor after it resolves. */
  onBatch(batch: EventBatch): Promise<void>;
  /** A batch failed, or the log's reader stopped and is replaced (either is retried); for logging. */
  onError?(error: Error): void;
  /**
   * A bound per partition (a replay to a point in the log): only events below it are delivered,
   * and the partition is held there, skipping nothing. After the bound is raised,
   * `Subscription.resume()` lets held partitions continue. Undefined: no bound.
   */
  until?(topic: string, partition: number): bigint | undefined;
  /** A one-off reader (a replay): the log forgets its group once it stops. */
  ephemeral?: boolean;
}

/** A topic as it is designed: its name and how many partitions it is created with. */
export interface TopicDesign {
  topic: string;
  partitions: number;
}

export interface Subscription {
  /** Partitions held at their `until` bound look at it again (call after raising it). */
  resume(): void;
  stop(): Promise<void>;
}

export interface AppendOptions {
  /** Aborting it before the events are sent takes them back. */
  signal?: AbortSignal;
  /** Called at once, inside abort(), when the events are taken back (the append rejects too). */
  onWithdrawn?: () => void;
}

export interface EventLog {
  readonly kind: 'kafka' | 'embedded';
  /**
   * Creates the missing topics with their partitions (idempotent); an existing topic is left as it
   * is. Answers what an operator should know of the existing ones (e.g. fewer copies than new
   * topics get), one line each.
   */
  ensureTopics(topics: readonly TopicDesign[]): Promise<string[]>;
  /** The topics (as named by the code, without TOPIC_PREFIX) this log does not have. */
  missingTopics(topics: readonly string[]): Promise<string[]>;
  /**
   * Resolves once every event is durable (acks=all on Kafka, committed in Postgres embedded).
   * `signal` aborting before the events are sent takes them back: rejected with
   * AppendWithdrawnError, certainly not written; once sent, the append follows its write.
   */
  append(topic: string, events: NewEvent[], options?: AppendOptions): Promise<AppendedEvent[]>;
  /**
   * A bounded read of one topic (exports): the spans are fixed when it opens, ending at most where
   * the log ended then, so it finishes however busy the topic is. Throws LogBoundError for a
   * bound naming another topic or a partition the topic does not have, and for an unknown topic.
   */
  read(topic: string, bounds: ReadBounds): Promise<BoundedRead>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Next offset to be written per partition (the high watermark), for lag. */
  endOffsets(topic: string): Promise<TopicPartitionOffset[]>;
  /**
   * Per partition, the offset of the first event logged after `time` (the end offset when there
   * is none): where the log ended at that time, given timestamps that follow the log's order.
   */
  offsetsAfter(topic: string, time: Date): Promise<TopicPartitionOffset[]>;
  /**
   * Used by /readyz. Throws when the log does not answer; with `appends` (the default), also when it would refuse
   * appends now (on Kafka: a partition of this process's topics without a leader, or with fewer
   * copies in sync than its min.insync.replicas). A process that only reads passes false.
   */
  ping(options?: { appends?: boolean }): Promise<void>;
  close(): Promise<void>;
}

/**
 * Where a bounded read starts or ends in each partition: given positions, or a time (per
 * partition, the first event whose timestamp is at or after it; the log's timestamps follow its
 * order, so the events between two such offsets are those logged between the two times).
 */
export type LogBound = { positions: TopicPartitionOffset[] } | { time: Date };

export interface ReadBounds {
  /** Inclusive. Partitions without a position start at the beginning of the log. */
  from?: LogBound;
  /** Exclusive. Partitions without a position end where the log ended when the read opened. */
  to?: LogBound;
}

/** The offsets a bounded read covers in one partition: from inclusive, to exclusive. */
export interface PartitionSpan {
  partition: number;
  from: string;
  to: string;
}

export interface BoundedRead {
  topic: string;
  spans: PartitionSpan[];
  /**
   * Hands over the events of the spans a batch at a time, each partition in offset order (one
   * batch at a time overall); resolves once every span is read, rejects on the first failure.
   */
  forEach(onBatch: (batch: EventBatch) => Promise<void>): Promise<void>;
}

/** A bound the topic cannot satisfy: names the bound, so a command can name its flag. */
export class LogBoundError extends Error {
  constructor(readonly bound: 'from' | 'to' | 'topic', message: string) {
    super(message);
    this.name = 'LogBoundError';
  }
}

/**
 * An event larger than its topic takes (Kafka's max.message.bytes): refused before anything of its
 * append is sent, so nothing of it is written, and the same input is refused every time.
 */
export class EventTooLargeError extends Error {
  constructor(readonly topic: string, readonly type: string, readonly bytes: number, readonly limit: number) {
    super(`the ${type} event is ${bytes} bytes encoded, more than the ${limit} bytes topic ${topic} takes for one event (its max.message.bytes, less a record batch's framing): make its content smaller`);
    this.name = 'EventTooLargeError';
  }
}
