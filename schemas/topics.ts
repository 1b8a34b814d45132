/**
 * Every topic of the log with its partition count. Each process creates the missing ones once,
 * when it opens the log (platform/runtime.ts); appends never check for their topic.
 *
 * A topic's partitions are part of its design: events of one key are ordered only within one
 * partition, and a projection runs at most one consumer per partition. Kafka can add partitions
 * but never remove them, and adding moves keys to other partitions (their order across the change
 * is lost), so each count is chosen up front for the topic's volume. A count here only applies to
 * a topic that does not exist yet. The embedded log has one partition per topic whatever the count.
 */
export const TOPICS = [
  // Written by people (admin commands, the seed): small volumes, so few partitions.
  /** Keyed by developer or application: 3 lets up to three projector processes share it. */
  { topic: 'accounts', partitions: 3 },
  /** Tens of partners configured by hand: one partition keeps one order and costs nothing. */
  { topic: 'partners', partitions: 1 },
  /** Keyed by offer: catalog imports of tens of thousands of offers, snapshots and links. */
  { topic: 'offers', partitions: 3 },
  /** The diagnostic topic (`catalog-entry:record`, the event benchmarks). */
  { topic: 'catalog', partitions: 3 },
  // Written per request (served cards, clicks, postbacks): the volume grows with traffic. Six
  // spreads evenly over one, two, three or six projector processes; for postbacks it is also how
  // many decision writers can run side by side (one per partition).
  { topic: 'serves', partitions: 6 },
  { topic: 'clicks', partitions: 6 },
  { topic: 'postbacks', partitions: 6 },
] as const satisfies readonly { topic: string; partitions: number }[];

export type TopicName = (typeof TOPICS)[number]['topic'];

/** The designed partition count of a topic. */
export function partitionsOf(topic: TopicName): number {
  return TOPICS.find((design) => design.topic === topic)!.partitions;
}
