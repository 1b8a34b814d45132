/**
 * Runs an admin call again while Kafka answers with a retriable error. A freshly started broker
 * (or a moved group coordinator) answers NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS for a
 * while, and kafkajs' admin client does not retry those itself for every request.
 */
export async function retryRetriable<T>(call: () => Promise<T>, attempts = 12): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (!(error as { retriable?: boolean }).retriable || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 50 * 2 ** attempt)));
    }
  }
}
