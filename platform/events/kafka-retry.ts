/**
 * Runs an admin call again while Kafka answers with a retriable error. A freshly started broker
 * (or a moved group coordinator) answers NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS for a
 * while, and kafkajs' admin client does not retry those itself for every request.
 */
export async function retryRetriable<T>(call: () => Promise<T>, attempts = 12, alsoRetry: (error: unknown) => boolean = () => false): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (!((error as { retriable?: boolean }).retriable || alsoRetry(error)) || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 50 * 2 ** attempt)));
    }
  }
}

/**
 * kafkajs' fetchTopicOffsets on a topic created a moment ago, before the broker it asks has its
 * partitions, fails inside kafkajs with a TypeError (it reads the offsets of a partition list that
 * is empty): a start that created its topics on a cluster of several brokers crashed one time in
 * three. The same call a moment later answers.
 */
export const isUnpropagatedTopic = (error: unknown) => error instanceof TypeError && /partitions/.test(error.message);
