import type { Admin } from 'kafkajs';
import { retryRetriable } from './kafka-retry.js';

/**
 * The first offset of each partition at or after `ms` (epoch milliseconds, whole). Kafka takes
 * the timestamps -1 and -2 as "the end" and "the start" and refuses other negative ones, and
 * holds no message stamped before 1970: an earlier time is asked as 0, which every message is at
 * or after.
 */
export function offsetsAtOrAfter(admin: Admin, topic: string, ms: number) {
  return retryRetriable(() => admin.fetchTopicOffsetsByTimestamp(topic, Math.max(0, ms)));
}
