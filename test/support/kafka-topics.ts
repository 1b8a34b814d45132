import { Kafka, logLevel } from 'kafkajs';
import { inject } from 'vitest';

/** The shared test cluster's topics whose names start with `prefix` (none, when a command must have created nothing). */
export async function clusterTopicsStartingWith(prefix: string): Promise<string[]> {
  const admin = new Kafka({ brokers: inject('stack').kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return (await admin.listTopics()).filter((name) => name.startsWith(prefix));
  } finally {
    await admin.disconnect();
  }
}
