import kafkajs, { type Admin } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { kafkaTopics } from '../../platform/events/kafka-topics.js';

const { ConfigSource } = kafkajs;

/**
 * A broker that refuses this client topic changes (ACLs, an alter policy), answering everything
 * else as the real one does for one existing topic inheriting the broker's 7 days: the only part
 * of a cluster a unit test can stand in for, as the test stack's broker refuses nothing.
 */
function refusingAdmin(topic: string): Admin {
  const admin = {
    listTopics: async () => [topic],
    describeCluster: async () => ({ brokers: [{ nodeId: 1, host: '127.0.0.1', port: 9092 }], controller: 1, clusterId: 'c' }),
    fetchTopicMetadata: async () => ({ topics: [{ name: topic, partitions: [{ partitionId: 0, leader: 1, replicas: [1], isr: [1], offlineReplicas: [], partitionErrorCode: 0 }] }] }),
    describeConfigs: async () => ({
      throttleTime: 0,
      resources: [{
        resourceName: topic, resourceType: 2, errorCode: 0, errorMessage: '',
        configEntries: [
          { configName: 'retention.ms', configValue: '604800000', isDefault: true, configSource: ConfigSource.DEFAULT_CONFIG, isSensitive: false, readOnly: false, configSynonyms: [] },
          { configName: 'min.insync.replicas', configValue: '1', isDefault: false, configSource: ConfigSource.TOPIC_CONFIG, isSensitive: false, readOnly: false, configSynonyms: [] },
        ],
      }],
    }),
    alterConfigs: async () => {
      throw Object.assign(new Error('Topic authorization failed'), { type: 'TOPIC_AUTHORIZATION_FAILED', retriable: false });
    },
  };
  return admin as unknown as Admin;
}

describe('topic settings a cluster refuses to change', () => {
  it('do not stop the start: the operator is told what to set on the topic', async () => {
    const topics = kafkaTopics(refusingAdmin('p.postbacks'), (topic) => `p.${topic}`, { replicationFactor: 0, minInsyncReplicas: 0 });
    expect(await topics.ensureTopics([{ topic: 'postbacks', partitions: 1 }])).toEqual([
      'topic p.postbacks could not be given the log\'s settings (Topic authorization failed): set retention.ms=-1 retention.bytes=-1 cleanup.policy=delete message.timestamp.type=LogAppendTime unclean.leader.election.enable=false on it',
    ]);
  });
});
