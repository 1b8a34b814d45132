import { describe, expect, it } from 'vitest';
import { fewerCopiesThan, topicReplication } from '../../platform/events/topic-replication.js';

const decided = { replicationFactor: 0, minInsyncReplicas: 0 };

describe('the replication of the topics the service creates', () => {
  it('keeps three copies on a cluster of three or more, and acknowledges an append once two hold it', () => {
    expect(topicReplication(3, decided)).toEqual({ replicationFactor: 3, minInsyncReplicas: 2 });
    expect(topicReplication(6, decided)).toEqual({ replicationFactor: 3, minInsyncReplicas: 2 });
  });

  it('keeps as many copies as there are brokers below three, one broker down stopping no append', () => {
    expect(topicReplication(2, decided)).toEqual({ replicationFactor: 2, minInsyncReplicas: 1 });
    expect(topicReplication(1, decided)).toEqual({ replicationFactor: 1, minInsyncReplicas: 1 });
  });

  it('takes what is configured', () => {
    expect(topicReplication(5, { replicationFactor: 5, minInsyncReplicas: 0 })).toEqual({ replicationFactor: 5, minInsyncReplicas: 4 });
    expect(topicReplication(5, { replicationFactor: 0, minInsyncReplicas: 3 })).toEqual({ replicationFactor: 3, minInsyncReplicas: 3 });
    expect(topicReplication(3, { replicationFactor: 2, minInsyncReplicas: 2 })).toEqual({ replicationFactor: 2, minInsyncReplicas: 2 });
  });

  it('refuses, naming the setting, what the cluster cannot hold', () => {
    expect(() => topicReplication(1, { replicationFactor: 3, minInsyncReplicas: 0 })).toThrow('KAFKA_REPLICATION_FACTOR: is 3, but the cluster has 1 broker(s) up; lower it, or start the brokers that are down');
    expect(() => topicReplication(3, { replicationFactor: 0, minInsyncReplicas: 4 })).toThrow('KAFKA_MIN_INSYNC_REPLICAS: is 4, more than the 3 copies');
    expect(() => topicReplication(3, { replicationFactor: 2, minInsyncReplicas: 3 })).toThrow('KAFKA_MIN_INSYNC_REPLICAS: is 3');
  });
});

describe('existing topics with fewer copies', () => {
  const topic = (name: string, ...copies: number[]) => ({ name, partitions: copies.map((count) => ({ replicas: Array.from({ length: count }, (_, id) => id + 1) })) });

  it('are named, by their least replicated partition, with what to do', () => {
    const lines = fewerCopiesThan(3, [topic('serves', 3, 3), topic('clicks', 3, 1), topic('postbacks', 2, 2)]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^topic clicks keeps 1 copy of its events, fewer than the 3 a new topic gets on this cluster; it is left as it is \(raise .*kafka-reassign-partitions/);
    expect(lines[1]).toMatch(/^topic postbacks keeps 2 copies/);
  });

  it('are not reported when they keep as many as new ones get', () => {
    expect(fewerCopiesThan(1, [topic('serves', 1, 1)])).toEqual([]);
    expect(fewerCopiesThan(3, [topic('serves', 3), topic('clicks', 5)])).toEqual([]);
  });
});
