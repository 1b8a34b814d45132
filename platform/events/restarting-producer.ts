import type { Producer, RecordMetadata, TopicMessages } from 'kafkajs';

/**
 * How long a broker waits for the in-sync copies of a write before it answers with a timeout
 * (kafkajs' default is 30 s, retried five times: with too few brokers up to reach
 * min.insync.replicas an append then hung for minutes). The client's retries still apply.
 */
const ACK_TIMEOUT_MS = 2_000;

/**
 * Sends through an idempotent kafkajs producer, and after a send that failed, through a new one.
 *
 * Why: a send can fail after the broker wrote it (the broker stops before its answer arrives).
 * kafkajs then hands the same sequence numbers to the next send of that partition, and the
 * broker takes that send either for a duplicate of the written one (acknowledged, not written:
 * a lost write) or for out of order (refused, and so is every later send of that partition,
 * until the process restarts). A new producer has a new producer id, whose sequences start
 * afresh: what the failed send may have written stays in the log once (a caller that retries
 * appends again, which the projectors' idempotent keys absorb), and nothing later is lost.
 */
export interface RestartingProducer {
  sendBatch(topicMessages: TopicMessages[]): Promise<RecordMetadata[]>;
  /** Disconnects the producer in use (and any still being replaced). */
  disconnect(): Promise<void>;
}

/**
 * `create` makes an unconnected producer; the first is connected before this resolves (so start-up
 * fails loudly when the log is unreachable), a replacement on the next send. `onReplace` is told
 * each time a failed send retires its producer. One send at a time is expected (the append
 * batcher's contract); a failure replaces the producer that failed only once.
 */
export async function restartingProducer(create: () => Producer, onReplace?: () => void): Promise<RestartingProducer> {
  const start = async () => {
    const producer = create();
    try {
      await producer.connect();
    } catch (error) {
      await producer.disconnect().catch(() => {});
      throw error;
    }
    return producer;
  };
  let current: Promise<Producer> | undefined = Promise.resolve(await start());
  const retired = new Set<Promise<void>>();
  const inUse = () => {
    // A replacement that could not connect is tried again by the next send.
    current ??= start().catch((error: unknown) => {
      current = undefined;
      throw error;
    });
    return current;
  };
  const retire = (producer: Producer) => {
    const gone = producer.disconnect().catch(() => {});
    retired.add(gone);
    void gone.finally(() => retired.delete(gone));
  };

  return {
    async sendBatch(topicMessages) {
      const using = inUse();
      const producer = await using;
      try {
        return await producer.sendBatch({ acks: -1, timeout: ACK_TIMEOUT_MS, topicMessages });
      } catch (error) {
        if (current === using) {
          current = undefined;
          retire(producer);
          onReplace?.();
        }
        throw error;
      }
    },
    async disconnect() {
      const last = current;
      current = undefined;
      const producer = await last?.catch(() => undefined);
      await Promise.all([producer?.disconnect(), ...retired]);
    },
  };
}
