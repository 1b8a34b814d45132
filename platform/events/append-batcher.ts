import type { AppendOptions } from './event-log.js';

/**
 * Coalesces concurrent appends into one write. Each request pays a full acks=all round trip on its
 * own, and an idempotent producer sends one request at a time; merging the appends that arrive
 * together makes throughput grow with load while latency stays about one round trip.
 *
 * - An append that finds the sender idle waits `lingerMs` for company (0: the next turn of the
 *   event loop), then goes. Appends arriving while a write is in flight form the next batch, sent
 *   as soon as that write is answered.
 * - A batch is sent at once when it reaches `maxMessages` or `maxBytes`. One append is never
 *   split: a single append bigger than the cap is a batch of its own.
 * - One write at a time, batches in arrival order; within a batch, appends in arrival order and
 *   each append's messages in its own order.
 * - Each caller gets exactly its own offsets. A failed write rejects every caller of its batch and
 *   none of the next one.
 * - An append whose `signal` aborts before its batch is sent is taken out and rejected with
 *   AppendWithdrawnError: it is certainly not written. Once sent, it follows its write.
 */

/** An append taken back before it was sent: nothing of it was written, nor will be. */
export class AppendWithdrawnError extends Error {
  constructor() {
    super('the append was given up on before it was sent: nothing was written');
    this.name = 'AppendWithdrawnError';
  }
}

/** A message whose partition the caller has already chosen. */
export interface PartitionedMessage {
  partition: number;
  key?: string;
  value: Buffer;
}

export interface TopicMessages<M> {
  topic: string;
  messages: M[];
}

/** What one write put in one partition (kafkajs' RecordMetadata has this shape). */
export interface PartitionBase {
  topicName: string;
  partition: number;
  /** Offset of the partition's first message of the write; the others follow it consecutively. */
  baseOffset?: string;
}

export interface PartitionOffset {
  partition: number;
  /** Decimal string: offsets are int64. */
  offset: string;
}

export interface AppendBatcherOptions<M> {
  /**
   * Writes one batch (each topic once, its messages in order) and resolves once it is durable,
   * with the base offset of every partition it wrote; rejects if it is not.
   */
  write(batch: TopicMessages<M>[]): Promise<PartitionBase[]>;
  lingerMs: number;
  maxMessages?: number;
  /** Keys and values; under Kafka's default limit of about 1 MiB per record batch. */
  maxBytes?: number;
}

export interface AppendBatcher<M> {
  /** Resolves with the partition and offset of each message, in order, once its batch is durable. */
  append(topic: string, messages: M[], options?: AppendOptions): Promise<PartitionOffset[]>;
  /** Sends what is waiting at once and resolves when nothing is pending or in flight. */
  flush(): Promise<void>;
}

interface Call<M> {
  topic: string;
  messages: M[];
  bytes: number;
  resolve(offsets: PartitionOffset[]): void;
  reject(error: unknown): void;
}

interface Batch<M> {
  calls: Call<M>[];
  messages: number;
  bytes: number;
}

const DEFAULT_MAX_MESSAGES = 500;
const DEFAULT_MAX_BYTES = 1_000_000;

const weigh = (messages: PartitionedMessage[]) =>
  messages.reduce((sum, message) => sum + message.value.length + (message.key === undefined ? 0 : Buffer.byteLength(message.key)), 0);

export function appendBatcher<M extends PartitionedMessage>(options: AppendBatcherOptions<M>): AppendBatcher<M> {
  const maxMessages = options.maxMessages ?? DEFAULT_MAX_MESSAGES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let open: Batch<M> | undefined;
  const ready: Batch<M>[] = [];
  let cancelLinger: (() => void) | undefined;
  let inFlight: Promise<void> | undefined;

  function seal() {
    cancelLinger?.();
    cancelLinger = undefined;
    if (open) ready.push(open);
    open = undefined;
  }

  function startLinger() {
    const go = () => {
      cancelLinger = undefined;
      seal();
      sendNext();
    };
    if (options.lingerMs > 0) {
      const timer = setTimeout(go, options.lingerMs);
      cancelLinger = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(go);
      cancelLinger = () => clearImmediate(immediate);
    }
  }

  function sendNext() {
    if (inFlight) return;
    const batch = ready.shift();
    if (!batch) return;
    inFlight = deliver(batch).finally(() => {
      inFlight = undefined;
      // What arrived meanwhile has waited long enough: it goes now.
      seal();
      sendNext();
    });
  }

  /** Takes `call` out of the batch that holds it, unless that batch has been sent; whether it did. */
  function withdraw(call: Call<M>): boolean {
    for (const batch of open ? [open, ...ready] : ready) {
      const index = batch.calls.indexOf(call);
      if (index < 0) continue;
      batch.calls.splice(index, 1);
      batch.messages -= call.messages.length;
      batch.bytes -= call.bytes;
      if (batch.calls.length === 0) {
        if (batch === open) {
          cancelLinger?.();
          cancelLinger = undefined;
          open = undefined;
        } else ready.splice(ready.indexOf(batch), 1);
      }
      return true;
    }
    return false;
  }

  async function deliver(batch: Batch<M>) {
    try {
      const byTopic = new Map<string, M[]>();
      for (const call of batch.calls) {
        const messages = byTopic.get(call.topic) ?? [];
        byTopic.set(call.topic, messages);
        // One at a time: spreading a large append into push() would overflow the call stack.
        for (const message of call.messages) messages.push(message);
      }
      const written = await options.write([...byTopic].map(([topic, messages]) => ({ topic, messages })));
      const offsets = assignOffsets(batch.calls, written);
      batch.calls.forEach((call, index) => call.resolve(offsets[index]!));
    } catch (error) {
      for (const call of batch.calls) call.reject(error);
    }
  }

  return {
    append(topic, messages, { signal, onWithdrawn } = {}) {
      if (messages.length === 0) return Promise.resolve([]);
      if (signal?.aborted) {
        onWithdrawn?.();
        return Promise.reject(new AppendWithdrawnError());
      }
      return new Promise((resolve, reject) => {
        const bytes = weigh(messages);
        if (open && (open.messages + messages.length > maxMessages || open.bytes + bytes > maxBytes)) {
          seal();
          sendNext();
        }
        const startsBatch = !open;
        open ??= { calls: [], messages: 0, bytes: 0 };
        const onAbort = () => {
          if (!withdraw(call)) return;
          onWithdrawn?.();
          reject(new AppendWithdrawnError());
        };
        const settle = () => signal?.removeEventListener('abort', onAbort);
        const call: Call<M> = {
          topic,
          messages,
          bytes,
          resolve: (offsets) => (settle(), resolve(offsets)),
          reject: (error) => (settle(), reject(error)),
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        open.calls.push(call);
        open.messages += messages.length;
        open.bytes += bytes;
        if (open.messages >= maxMessages || open.bytes >= maxBytes) seal();
        else if (startsBatch && !inFlight) startLinger();
        sendNext();
      });
    },
    async flush() {
      seal();
      sendNext();
      while (inFlight) await inFlight;
    },
  };
}

/** Per partition, a write's messages have consecutive offsets from its base offset, in the order sent. */
function assignOffsets<M extends PartitionedMessage>(calls: Call<M>[], written: PartitionBase[]): PartitionOffset[][] {
  const at = (topic: string, partition: number) => `${partition}:${topic}`;
  const next = new Map<string, bigint>();
  for (const { topicName, partition, baseOffset } of written) {
    if (baseOffset !== undefined) next.set(at(topicName, partition), BigInt(baseOffset));
  }
  return calls.map((call) =>
    call.messages.map(({ partition }) => {
      const offset = next.get(at(call.topic, partition));
      if (offset === undefined) throw new Error(`the write did not report an offset for ${call.topic} partition ${partition}`);
      next.set(at(call.topic, partition), offset + 1n);
      return { partition, offset: offset.toString() };
    }),
  );
}
