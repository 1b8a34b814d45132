import type { Admin, PartitionMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { appendsRefusedBecause, existingTopics } from '../../platform/events/kafka-topic-state.js';
import { fewerInsyncThan } from '../../platform/events/topic-replication.js';

const partition = (partitionId: number, leader: number, replicas: number[], isr: number[]): PartitionMetadata => ({ partitionErrorCode: 0, partitionId, leader, replicas, isr });

describe('whether appends would be taken (readiness of the event log)', () => {
  const minInsync = new Map([['p.postbacks', 2], ['p.serves', 1]]);

  it('takes them while every partition has a leader and enough copies in sync', () => {
    const topics = [
      { name: 'p.postbacks', partitions: [partition(0, 1, [1, 2, 3], [1, 2]), partition(1, 2, [1, 2, 3], [1, 2, 3])] },
      { name: 'p.serves', partitions: [partition(0, 3, [3], [3])] },
    ];
    expect(appendsRefusedBecause(topics, minInsync)).toBeUndefined();
  });

  it('names the partitions with too few copies in sync, or no leader', () => {
    const topics = [
      { name: 'p.postbacks', partitions: [partition(0, 1, [1, 2, 3], [1]), partition(1, 2, [1, 2, 3], [2, 3])] },
      { name: 'p.serves', partitions: [partition(0, -1, [3], [])] },
    ];
    expect(appendsRefusedBecause(topics, minInsync)).toBe(
      'appends would be refused: topic p.postbacks partition 0 has 1 of 3 copies in sync, fewer than the 2 an append needs (min.insync.replicas); topic p.serves partition 0 has no leader',
    );
  });

  it('asks for no more copies in sync than a partition keeps, as the broker does', () => {
    expect(appendsRefusedBecause([{ name: 'p.postbacks', partitions: [partition(0, 1, [1], [1])] }], minInsync)).toBeUndefined();
    expect(appendsRefusedBecause([{ name: 'p.postbacks', partitions: [partition(0, 1, [1, 2], [1])] }], new Map([['p.postbacks', 3]]))).toMatch(/has 1 of 2 copies in sync, fewer than the 2 an append needs/);
  });

  it('counts a topic whose setting is unknown as needing one copy, and names at most three partitions', () => {
    const topics = [{ name: 'p.other', partitions: [0, 1, 2, 3, 4].map((id) => partition(id, -1, [1], [])) }];
    expect(appendsRefusedBecause([{ name: 'p.other', partitions: [partition(0, 1, [1], [1])] }], minInsync)).toBeUndefined();
    expect(appendsRefusedBecause(topics, minInsync)).toMatch(/partition 2 has no leader \(and 2 more partitions\)$/);
  });
});

describe('existing topics that take an append with fewer copies than a new one', () => {
  it('says so for each, with the command that raises it', () => {
    expect(fewerInsyncThan(2, new Map([['p.serves', 1], ['p.postbacks', 2], ['p.clicks', 3]]))).toEqual([
      'topic p.serves acknowledges an append once 1 copy holds it (min.insync.replicas), fewer than the 2 a new topic gets on this cluster; ' +
        'it is left as it is (raise it with kafka-configs --alter --add-config min.insync.replicas=2)',
    ]);
    expect(fewerInsyncThan(1, new Map([['p.serves', 1]]))).toEqual([]);
  });
});

describe('which of its topics exist', () => {
  const unknownTopic = () => Object.assign(new Error('This server does not host this topic-partition'), { type: 'UNKNOWN_TOPIC_OR_PARTITION', retriable: true });

  it("takes them from the cluster's list", async () => {
    const admin = { listTopics: async () => ['p.serves', 'other.serves'], fetchTopicMetadata: async () => Promise.reject(new Error('not asked')) } as unknown as Admin;
    expect(await existingTopics(admin, ['p.serves', 'p.clicks'])).toEqual(new Set(['p.serves']));
  });

  it('asks about each alone when the list cannot be had (a leaderless partition of any topic fails it)', async () => {
    const asked: string[][] = [];
    const admin = {
      listTopics: async () => Promise.reject(Object.assign(new Error('There is no leader for this topic-partition'), { type: 'LEADER_NOT_AVAILABLE' })),
      fetchTopicMetadata: async ({ topics }: { topics: string[] }) => {
        asked.push(topics);
        if (topics[0] === 'p.clicks') throw unknownTopic();
        return { topics: [] };
      },
    } as unknown as Admin;
    expect(await existingTopics(admin, ['p.serves', 'p.clicks'])).toEqual(new Set(['p.serves']));
    expect(asked).toEqual([['p.serves'], ['p.clicks']]);
  });
});
