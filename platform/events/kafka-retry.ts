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

/** A topic whose partitions the broker asked does not know yet (see isUnpropagatedTopic). */
export class TopicNotPropagatedError extends Error {
  constructor(topic: string) {
    super(`the broker asked does not know the partitions of topic ${topic} yet`);
    this.name = 'TopicNotPropagatedError';
  }
}

/**
 * Asked about a topic created a moment ago, before the broker it asks has its partitions, kafkajs
 * fails inside fetchTopicOffsets with a TypeError (it reads the offsets of an empty partition
 * list), and fetchOffsets answers without the topic: a start that created its topics on a cluster
 * of several brokers crashed one time in three, then one in five. The same calls a moment later
 * answer. Callers that find an answer short throw TopicNotPropagatedError.
 */
export const isUnpropagatedTopic = (error: unknown) =>
  error instanceof TopicNotPropagatedError || (error instanceof TypeError && /partitions/.test(error.message));
