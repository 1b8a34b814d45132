/** What the keeper needs of a kafkajs consumer: its crash event and a way to let it go. */
export interface CrashReporting {
  on(event: 'consumer.crash', listener: (event: { payload: { error: Error; restart: boolean } }) => void): unknown;
  disconnect(): Promise<void>;
}

export interface ConsumerKeeper<C> {
  /** The consumer running now (a replacement after a crash). */
  current(): C;
  /** Stops replacing crashed consumers and disconnects the current one. */
  halt(): Promise<void>;
}

export interface KeeperOptions<C> {
  /** A new, unconnected consumer. */
  build(): C;
  /** Connects, subscribes and runs it (kafkajs' run resolves once the group is joined, or after a crash it reports). */
  run(consumer: C): Promise<void>;
  /** Pause before a replacement is built. */
  retryMs: number;
  /** A consumer crashed for good and is about to be replaced; for logging. */
  onReplace?(error: Error): void;
}

/**
 * Keeps one consumer of a subscription running. kafkajs restarts a crashed consumer itself only
 * after a retriable error; after any other (e.g. "Failed to find group coordinator", which a broker
 * still loading its groups after a restart can answer for longer than kafkajs retries) it stays
 * disconnected for good while the process goes on, reading nothing. Such a consumer is replaced
 * by a new one after `retryMs`, and again until one runs or the keeper is halted. The first
 * consumer's failure to start is the caller's (it rejects).
 */
export async function keepConsumerRunning<C extends CrashReporting>(options: KeeperOptions<C>): Promise<ConsumerKeeper<C>> {
  let current: C;
  let halted = false;
  let timer: NodeJS.Timeout | undefined;
  let replacing: Promise<void> | undefined;

  async function launch(): Promise<void> {
    const consumer = options.build();
    current = consumer;
    consumer.on('consumer.crash', ({ payload }) => {
      if (!payload.restart) replaceLater(consumer, payload.error);
    });
    await options.run(consumer);
  }

  function replaceLater(crashed: C, error: Error) {
    // Only the running consumer is replaced, once; a halted keeper replaces nothing.
    if (halted || crashed !== current || timer) return;
    options.onReplace?.(error);
    timer = setTimeout(() => {
      timer = undefined;
      replacing = (async () => {
        await crashed.disconnect().catch(() => {});
        if (halted) return;
        await launch().catch((failure: Error) => replaceLater(current, failure));
      })();
    }, options.retryMs);
  }

  try {
    await launch();
  } catch (error) {
    halted = true;
    await current!.disconnect().catch(() => {});
    throw error;
  }
  return {
    current: () => current,
    async halt() {
      halted = true;
      clearTimeout(timer);
      timer = undefined;
      await replacing;
      await current.disconnect();
    },
  };
}
