import type { Producer } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { restartingProducer } from '../../platform/events/restarting-producer.js';

/** A stand-in producer that records its calls; `fail` decides each connect and send. */
function fakeProducers(fail: { connect?: (n: number) => boolean; send?: (n: number) => boolean } = {}) {
  const made: { n: number; sends: number; disconnected: boolean }[] = [];
  const create = () => {
    const state = { n: made.length + 1, sends: 0, disconnected: false };
    made.push(state);
    return {
      connect: async () => {
        if (fail.connect?.(state.n)) throw new Error(`producer ${state.n} cannot connect`);
      },
      sendBatch: async () => {
        state.sends += 1;
        if (fail.send?.(state.n)) throw new Error(`producer ${state.n} send failed`);
        return [{ topicName: 't', partition: 0, errorCode: 0, baseOffset: String(state.n) }];
      },
      disconnect: async () => {
        state.disconnected = true;
      },
    } as unknown as Producer;
  };
  return { made, create };
}

describe('restartingProducer', () => {
  it('keeps one producer while sends succeed', async () => {
    const { made, create } = fakeProducers();
    let replaced = 0;
    const producer = await restartingProducer(create, () => (replaced += 1));
    for (let i = 0; i < 3; i += 1) await producer.sendBatch([]);
    expect(made.map((p) => p.sends)).toEqual([3]);
    expect(replaced).toBe(0);
  });

  it('after a failed send, disconnects that producer and sends the next batch through a new one', async () => {
    const { made, create } = fakeProducers({ send: (n) => n === 1 });
    let replaced = 0;
    const producer = await restartingProducer(create, () => (replaced += 1));
    await expect(producer.sendBatch([])).rejects.toThrow('producer 1 send failed');
    expect(replaced).toBe(1);
    expect(await producer.sendBatch([])).toEqual([expect.objectContaining({ baseOffset: '2' })]);
    expect(made.map(({ sends, disconnected }) => ({ sends, disconnected }))).toEqual([
      { sends: 1, disconnected: true },
      { sends: 1, disconnected: false },
    ]);
    await producer.disconnect();
    expect(made[1]!.disconnected).toBe(true);
  });

  it('a replacement that cannot connect fails that send, and the next send tries a new one', async () => {
    const { made, create } = fakeProducers({ send: (n) => n === 1, connect: (n) => n === 2 });
    const producer = await restartingProducer(create);
    await expect(producer.sendBatch([])).rejects.toThrow('producer 1 send failed');
    await expect(producer.sendBatch([])).rejects.toThrow('producer 2 cannot connect');
    expect(await producer.sendBatch([])).toEqual([expect.objectContaining({ baseOffset: '3' })]);
    expect(made.map((p) => p.disconnected)).toEqual([true, true, false]);
  });

  it('fails at start when the first producer cannot connect', async () => {
    const { create } = fakeProducers({ connect: () => true });
    await expect(restartingProducer(create)).rejects.toThrow('producer 1 cannot connect');
  });
});
