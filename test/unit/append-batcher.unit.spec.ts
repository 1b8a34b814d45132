import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppendWithdrawnError, appendBatcher, type PartitionBase, type PartitionedMessage, type TopicMessages } from '../../platform/events/append-batcher.js';

const message = (partition: number, value: string): PartitionedMessage => ({ partition, key: `k${partition}`, value: Buffer.from(value) });

/**
 * A fake log that writes like a Kafka produce request: per partition, the batch's messages in
 * order from the partition's end, answering each partition's base offset. `hold()` makes the
 * next write wait until it is released (or failed), so a test can append while it is in flight.
 */
function fakeLog(preexisting: Record<string, number> = {}) {
  const partitions = new Map<string, string[]>(Object.entries(preexisting).map(([at, count]) => [at, Array.from({ length: count }, () => 'earlier')]));
  const writes: TopicMessages<PartitionedMessage>[][] = [];
  const held: { release(): void; fail(error: Error): void }[] = [];
  let holdNext = false;

  async function write(batch: TopicMessages<PartitionedMessage>[]): Promise<PartitionBase[]> {
    writes.push(batch);
    if (holdNext) {
      holdNext = false;
      await new Promise<void>((release, fail) => held.push({ release, fail }));
    }
    const bases = new Map<string, PartitionBase>();
    for (const { topic, messages } of batch) {
      for (const { partition, value } of messages) {
        const at = `${topic}/${partition}`;
        const stored = partitions.get(at) ?? [];
        if (!bases.has(at)) bases.set(at, { topicName: topic, partition, baseOffset: String(stored.length) });
        stored.push(value.toString());
        partitions.set(at, stored);
      }
    }
    return [...bases.values()];
  }

  return {
    write,
    writes,
    hold() {
      holdNext = true;
    },
    held,
    read: (topic: string, partition: number, offset: string) => partitions.get(`${topic}/${partition}`)?.[Number(offset)],
  };
}

/** Each message the caller sent is the one stored at the offset it got back. */
function expectOwnOffsets(log: ReturnType<typeof fakeLog>, topic: string, sent: PartitionedMessage[], got: { partition: number; offset: string }[]) {
  expect(got).toHaveLength(sent.length);
  got.forEach((at, index) => {
    expect(at.partition).toBe(sent[index]!.partition);
    expect(log.read(topic, at.partition, at.offset)).toBe(sent[index]!.value.toString());
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('append batcher', () => {
  it('merges appends made together into one write, topics in order of arrival and each append in its own order', async () => {
    const log = fakeLog();
    const batcher = appendBatcher({ write: log.write, lingerMs: 0 });
    const results = await Promise.all([
      batcher.append('a', [message(0, 'a1'), message(1, 'a2')]),
      batcher.append('b', [message(0, 'b1')]),
      batcher.append('a', [message(0, 'a3')]),
    ]);
    expect(log.writes).toHaveLength(1);
    expect(log.writes[0]!.map(({ topic, messages }) => [topic, messages.map((m) => m.value.toString())])).toEqual([
      ['a', ['a1', 'a2', 'a3']],
      ['b', ['b1']],
    ]);
    expect(results).toEqual([
      [{ partition: 0, offset: '0' }, { partition: 1, offset: '0' }],
      [{ partition: 0, offset: '0' }],
      [{ partition: 0, offset: '1' }],
    ]);
  });

  it('gives every caller exactly its own offsets across partitions and topics, after what the log already holds', async () => {
    const log = fakeLog({ 'a/0': 7, 'a/2': 1_000, 'b/1': 3 });
    const batcher = appendBatcher({ write: log.write, lingerMs: 0 });
    const calls = Array.from({ length: 40 }, (_, call) => ({
      topic: call % 3 === 0 ? 'b' : 'a',
      messages: Array.from({ length: 1 + (call % 4) }, (_, index) => message((call + index) % 3, `call${call}-event${index}`)),
    }));
    const results = await Promise.all(calls.map(({ topic, messages }) => batcher.append(topic, messages)));
    expect(log.writes).toHaveLength(1);
    calls.forEach(({ topic, messages }, index) => expectOwnOffsets(log, topic, messages, results[index]!));
  });

  it('lets the next batch gather while a write is in flight, past its linger, and sends it as one write once that write is answered', async () => {
    const log = fakeLog();
    const batcher = appendBatcher({ write: log.write, lingerMs: 0 });
    log.hold();
    const first = batcher.append('a', [message(0, 'first')]);
    await vi.waitFor(() => expect(log.held).toHaveLength(1));
    const later = Array.from({ length: 5 }, (_, index) => batcher.append('a', [message(index % 2, `later${index}`)]));
    // A turn of the event loop: an idle sender's linger would have ended here.
    await new Promise((resolve) => setImmediate(resolve));
    later.push(...Array.from({ length: 5 }, (_, index) => batcher.append('a', [message(index % 2, `later${index + 5}`)])));
    expect(log.writes).toHaveLength(1);
    log.held[0]!.release();
    await first;
    const offsets = await Promise.all(later);
    expect(log.writes).toHaveLength(2);
    expect(log.writes[1]![0]!.messages).toHaveLength(10);
    offsets.forEach((got, index) => expect(log.read('a', got[0]!.partition, got[0]!.offset)).toBe(`later${index}`));
  });

  it('takes back an append given up on before it is sent: rejected as withdrawn, never written; one already sent follows its write', async () => {
    const log = fakeLog();
    const batcher = appendBatcher({ write: log.write, lingerMs: 0 });
    log.hold();
    const sent = new AbortController();
    const first = batcher.append('a', [message(0, 'sent')], { signal: sent.signal });
    await vi.waitFor(() => expect(log.held).toHaveLength(1));
    const waiting = new AbortController();
    let toldWithdrawn = 0;
    const withdrawn = batcher.append('a', [message(0, 'withdrawn')], { signal: waiting.signal, onWithdrawn: () => (toldWithdrawn += 1) });
    const kept = batcher.append('a', [message(0, 'kept')]);
    const alone = new AbortController();
    waiting.abort();
    // Told inside abort(), before any promise settles.
    expect(toldWithdrawn).toBe(1);
    sent.abort();
    await expect(withdrawn).rejects.toBeInstanceOf(AppendWithdrawnError);
    log.held[0]!.release();
    expect(await first).toEqual([{ partition: 0, offset: '0' }]);
    expect(await kept).toEqual([{ partition: 0, offset: '1' }]);
    expect(log.writes.map((write) => write[0]!.messages.map((m) => m.value.toString()))).toEqual([['sent'], ['kept']]);
    // A batch left empty is not written; an append aborted before it is made is refused at once.
    log.hold();
    const blocker = batcher.append('a', [message(0, 'blocker')]);
    await vi.waitFor(() => expect(log.held).toHaveLength(2));
    const lonely = batcher.append('a', [message(0, 'lonely')], { signal: alone.signal });
    alone.abort();
    await expect(lonely).rejects.toBeInstanceOf(AppendWithdrawnError);
    await expect(batcher.append('a', [message(0, 'late')], { signal: alone.signal })).rejects.toBeInstanceOf(AppendWithdrawnError);
    log.held[1]!.release();
    await blocker;
    await batcher.flush();
    expect(log.writes).toHaveLength(3);
  });

  it('rejects every caller of a failed write and none of the next batch', async () => {
    const log = fakeLog();
    const batcher = appendBatcher({ write: log.write, lingerMs: 0 });
    log.hold();
    const failed = [batcher.append('a', [message(0, 'x')]), batcher.append('b', [message(1, 'y')])];
    await vi.waitFor(() => expect(log.held).toHaveLength(1));
    const next = [batcher.append('a', [message(0, 'z')]), batcher.append('b', [message(1, 'w')])];
    log.held[0]!.fail(new Error('not enough replicas'));
    const settled = await Promise.allSettled(failed);
    expect(settled.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(settled.map((result) => (result as PromiseRejectedResult).reason.message)).toEqual(['not enough replicas', 'not enough replicas']);
    const [a, b] = await Promise.all(next);
    expect(log.read('a', 0, a![0]!.offset)).toBe('z');
    expect(log.read('b', 1, b![0]!.offset)).toBe('w');
  });

  it('rejects the callers of a write that does not report an offset for a partition it was given', async () => {
    const batcher = appendBatcher({ lingerMs: 0, write: async () => [{ topicName: 'a', partition: 0, baseOffset: '5' }] });
    const results = await Promise.allSettled([batcher.append('a', [message(0, 'x')]), batcher.append('a', [message(1, 'y')])]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
  });

  it('waits the linger for company when the sender is idle, then writes', async () => {
    vi.useFakeTimers();
    const log = fakeLog();
    const batcher = appendBatcher({ write: log.write, lingerMs: 5 });
    const first = batcher.append('a', [message(0, 'one')]);
    await vi.advanceTimersByTimeAsync(4);
    const second = batcher.append('a', [message(0, 'two')]);
    expect(log.writes).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(log.writes).toHaveLength(1);
    expect(await Promise.all([first, second])).toEqual([[{ partition: 0, offset: '0' }], [{ partition: 0, offset: '1' }]]);
  });

  it('writes at once, without the linger, when a batch reaches the message cap', async () => {
    vi.useFakeTimers();
    const log = fakeLog();
    const batcher = appendBatcher({ write: log.write, lingerMs: 1_000, maxMessages: 4 });
    const calls = [batcher.append('a', [message(0, 'c1-1'), message(0, 'c1-2')]), batcher.append('a', [message(1, 'c2-1'), message(1, 'c2-2')])];
    await vi.advanceTimersByTimeAsync(0);
    expect(log.writes.map((batch) => batch[0]!.messages.length)).toEqual([4]);
    await Promise.all(calls);
  });

  it('starts the next batch with the append that would overflow the message cap', async () => {
    vi.useFakeTimers();
    const log = fakeLog();
    const batcher = appendBatcher({ write: log.write, lingerMs: 1_000, maxMessages: 5 });
    const calls = [
      batcher.append('a', [message(0, 'c1-1'), message(0, 'c1-2')]),
      batcher.append('a', [message(0, 'c2-1'), message(0, 'c2-2')]),
      batcher.append('a', [message(0, 'c3-1'), message(0, 'c3-2'), message(0, 'c3-3')]),
    ];
    await vi.advanceTimersByTimeAsync(0);
    // c3 would make 7: [c1, c2] goes at once; c3 gathers while it is in flight and follows it.
    expect(log.writes.map((batch) => batch[0]!.messages.length)).toEqual([4, 3]);
    await Promise.all(calls);
  });

  it('writes at once when a batch reaches the byte cap, and never splits one append bigger than the cap', async () => {
    vi.useFakeTimers();
    const log = fakeLog();
    const batcher = appendBatcher({ write: log.write, lingerMs: 1_000, maxBytes: 100 });
    const big = Array.from({ length: 3 }, (_, index) => message(index, 'x'.repeat(60)));
    const got = batcher.append('a', big);
    await vi.advanceTimersByTimeAsync(0);
    expect(log.writes.map((batch) => batch[0]!.messages.length)).toEqual([3]);
    expectOwnOffsets(log, 'a', big, await got);
    // 42 bytes (key and value), then 62 more would make 104: the first goes, the second follows it.
    const calls = [batcher.append('a', [message(0, 'y'.repeat(40))]), batcher.append('a', [message(1, 'z'.repeat(60))])];
    await vi.advanceTimersByTimeAsync(0);
    expect(log.writes.map((batch) => batch[0]!.messages.length)).toEqual([3, 1, 1]);
    await Promise.all(calls);
  });

  it('sends batches one at a time in arrival order', async () => {
    const log = fakeLog();
    let writing = 0;
    let overlapped = false;
    const batcher = appendBatcher({
      lingerMs: 0,
      maxMessages: 2,
      write: async (batch) => {
        writing += 1;
        overlapped ||= writing > 1;
        try {
          return await log.write(batch);
        } finally {
          writing -= 1;
        }
      },
    });
    const results = await Promise.all(Array.from({ length: 9 }, (_, index) => batcher.append('a', [message(0, `e${index}`)])));
    expect(overlapped).toBe(false);
    expect(log.writes.length).toBeGreaterThan(1);
    expect(results.map(([at]) => Number(at!.offset))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('flush sends what is waiting without the linger and resolves once it is written', async () => {
    vi.useFakeTimers();
    const log = fakeLog();
    const batcher = appendBatcher({ write: log.write, lingerMs: 60_000 });
    const pending = batcher.append('a', [message(0, 'x')]);
    await batcher.flush();
    expect(log.writes).toHaveLength(1);
    expect(await pending).toEqual([{ partition: 0, offset: '0' }]);
  });

  it('answers an empty append with no offsets and no write', async () => {
    const log = fakeLog();
    const batcher = appendBatcher({ write: log.write, lingerMs: 0 });
    expect(await batcher.append('a', [])).toEqual([]);
    await batcher.flush();
    expect(log.writes).toHaveLength(0);
  });
});
