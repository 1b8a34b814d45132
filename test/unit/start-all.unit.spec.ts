import { describe, expect, it } from 'vitest';
import { startAll } from '../../platform/async/start-all.js';

/** A part that starts after `ms` (or fails then) and records whether it was stopped. */
function part(name: string, ms: number, fails = false) {
  const state = { name, started: false, stopped: false };
  const start = () =>
    new Promise<{ name: string; stop(): Promise<void> }>((resolve, reject) =>
      setTimeout(() => {
        if (fails) return reject(new Error(`${name} cannot start`));
        state.started = true;
        resolve({ name, stop: async () => void (state.stopped = true) });
      }, ms),
    );
  return { state, start };
}

describe('startAll', () => {
  it('starts the parts side by side and gives them back in order', async () => {
    // Each start finishes only once every start has been called: one after another would never finish.
    let called = 0;
    let everyStartCalled!: () => void;
    const allCalled = new Promise<void>((resolve) => (everyStartCalled = resolve));
    const names = ['slow', 'fast', 'middle'];
    const started = await startAll(
      names.map((name) => async () => {
        called += 1;
        if (called === names.length) everyStartCalled();
        await allCalled;
        return { name, stop: async () => {} };
      }),
    );
    expect(started.map((p) => p.name)).toEqual(names);
  });

  it('stops every part that started, even one that started after the failure, and throws the failure', async () => {
    const parts = [part('first', 1), part('broken', 5, true), part('late', 20)];
    await expect(startAll(parts.map((p) => p.start))).rejects.toThrow('broken cannot start');
    expect(parts.map((p) => [p.state.name, p.state.started, p.state.stopped])).toEqual([
      ['first', true, true],
      ['broken', false, false],
      ['late', true, true],
    ]);
  });
});
