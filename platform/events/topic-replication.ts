import { BackendUnavailableError } from '../startup.js';

/** How the topics the service creates are replicated: how many copies, and how many must have an append before it is acknowledged. */
export interface TopicReplication {
  replicationFactor: number;
  /** min.insync.replicas: with acks=all, an append is acknowledged once this many copies hold it. */
  minInsyncReplicas: number;
}

/** Copies kept at most when the cluster decides (three survive one broker lost and one being restarted). */
const CLUSTER_COPIES = 3;

/**
 * The replication of new topics on a cluster of `brokers`: the configured factor (0: the smaller
 * of three and the brokers there are), and the configured minimum of in-sync copies (0: one less
 * than the factor, at least one), so that an acknowledged append is on two brokers wherever
 * there are two, and one broker down stops no append. A broker's own default of one copy would
 * make acks=all mean a single disk. Throws, naming the setting, for what the cluster cannot hold.
 */
export function topicReplication(brokers: number, configured: { replicationFactor: number; minInsyncReplicas: number }): TopicReplication {
  // A setting the cluster cannot hold, said as such (not as a broker that cannot be reached): exit 4, one line.
  if (configured.replicationFactor > brokers) {
    throw new BackendUnavailableError('KAFKA_REPLICATION_FACTOR', `is ${configured.replicationFactor}, but the cluster has ${brokers} broker(s) up`, 'lower it, or start the brokers that are down');
  }
  const replicationFactor = configured.replicationFactor || Math.max(1, Math.min(CLUSTER_COPIES, brokers));
  const minInsyncReplicas = configured.minInsyncReplicas || Math.max(1, replicationFactor - 1);
  if (minInsyncReplicas > replicationFactor) {
    throw new BackendUnavailableError('KAFKA_MIN_INSYNC_REPLICAS', `is ${minInsyncReplicas}, more than the ${replicationFactor} copies a topic keeps, so no append could be acknowledged`, 'lower it');
  }
  return { replicationFactor, minInsyncReplicas };
}

/**
 * One line for each topic whose partitions keep fewer than `replicationFactor` copies (its least
 * replicated partition counts): a topic created before, or by hand, is left as it is, and an
 * operator should know that an acknowledged append there may be on fewer brokers.
 */
export function fewerCopiesThan(replicationFactor: number, topics: { name: string; partitions: { replicas: number[] }[] }[]): string[] {
  return topics.flatMap(({ name, partitions }) => {
    const copies = Math.min(...partitions.map((partition) => partition.replicas.length));
    if (copies >= replicationFactor) return [];
    return [
      `topic ${name} keeps ${copies} ${copies === 1 ? 'copy' : 'copies'} of its events, fewer than the ${replicationFactor} a new topic gets on this cluster; ` +
        'it is left as it is (raise its replication with kafka-reassign-partitions and its min.insync.replicas with kafka-configs)',
    ];
  });
}

/**
 * One line for each existing topic that acknowledges an append with fewer copies than a new
 * topic would (its min.insync.replicas under `minInsyncReplicas`): left as it is, and said so.
 */
export function fewerInsyncThan(minInsyncReplicas: number, settings: Map<string, number>): string[] {
  return [...settings].flatMap(([name, setting]) =>
    setting >= minInsyncReplicas
      ? []
      : [
          `topic ${name} acknowledges an append once ${setting} ${setting === 1 ? 'copy holds' : 'copies hold'} it (min.insync.replicas), fewer than the ${minInsyncReplicas} a new topic gets on this cluster; ` +
            `it is left as it is (raise it with kafka-configs --alter --add-config min.insync.replicas=${minInsyncReplicas})`,
        ],
  );
}
