import { KafkaJSGroupCoordinatorNotFound } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { groupUnavailable, OffsetsPastLogEndError } from '../../platform/events/kafka-subscription.js';
import { BackendUnavailableError } from '../../platform/startup.js';

describe('a consumer group the broker refuses at the start', () => {
  // A broker that denies the client the group (an ACL) answers only that it found no coordinator.
  it('is a backend unavailable naming KAFKA_BROKERS, the group and what to check, not a stack trace', () => {
    const refused = groupUnavailable(new (KafkaJSGroupCoordinatorNotFound as unknown as new (message: string) => Error)('Failed to find group coordinator'), 'env.projection.abc.ledger');
    expect(refused).toBeInstanceOf(BackendUnavailableError);
    expect((refused as Error).message).toBe(
      'KAFKA_BROKERS: consumer group "env.projection.abc.ledger": Failed to find group coordinator; check that Kafka runs there and lets this client use the consumer groups and topics whose names start with TOPIC_PREFIX',
    );
  });

  it('leaves the errors of its own as they are', () => {
    const own = new OffsetsPastLogEndError('projection.abc.ledger', 'postbacks', [{ partition: 0, offset: '9', high: '3' }]);
    expect(groupUnavailable(own, 'g')).toBe(own);
    const plain = new Error('database gone');
    expect(groupUnavailable(plain, 'g')).toBe(plain);
  });
});
