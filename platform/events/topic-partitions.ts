/** An existing topic whose partition count is not the one it is designed with (schemas/topics.ts). */
export interface PartitionsUnlikeDesign {
  /** As on the broker (with TOPIC_PREFIX). */
  name: string;
  partitions: number;
  designed: number;
}

/** The existing topics among `topics` whose partition count differs from `designed` (by the same names). */
export function partitionsUnlikeDesign(designed: Map<string, number>, topics: { name: string; partitions: unknown[] }[]): PartitionsUnlikeDesign[] {
  return topics.flatMap(({ name, partitions }) => {
    const count = designed.get(name);
    return count === undefined || partitions.length === count ? [] : [{ name, partitions: partitions.length, designed: count }];
  });
}

/**
 * What an operator should know of such a topic. Events of one key (an account, an offer, a
 * postback's identity) keep their order only within one partition, and the key partitioner maps a
 * key by the partition count: partitions added to a topic in use send a key's later events to
 * another partition than its earlier ones, so the projectors, which apply each partition on its
 * own, may apply them out of order (a replay as well), and a postback's copies may be decided in
 * two partitions. Kafka cannot take partitions away, so the service does not refuse to start: the
 * topic is used as it is, and said so (also as the event_log_partitions_unlike_design gauge).
 */
export function partitionCountNote({ name, partitions, designed }: PartitionsUnlikeDesign): string {
  const what =
    partitions > designed
      ? 'partitions were added to it, or it was created with more'
      : 'it was created with fewer, before this service created it (by hand, or by the broker on first use)';
  return (
    `topic ${name} has ${partitions} partitions, not the ${designed} it is designed with: ${what}. ` +
    'Events of one key keep their order only within one partition, and a changed count sends a key\'s later events to another partition than its earlier ones, ' +
    'so they may be applied out of order and a postback\'s copies may be decided in two partitions. ' +
    'The topic is used as it is. Kafka cannot remove partitions: if events were written before the change, recreate the topic with ' +
    `${designed} partitions, copy its events into it in log order, and replay the read models; if it was always ${partitions}, keep it so`
  );
}
