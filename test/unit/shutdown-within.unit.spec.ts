import { afterEach, describe, expect, it, vi } from 'vitest';
import { shutDownWithin } from '../../platform/shutdown.js';

/** The closing steps of a process, with process.exit taken over: which code, and when. */
describe('shutDownWithin', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  const exits = () => {
    const codes: number[] = [];
    vi.spyOn(process, 'exit').mockImplementation(((code: number) => {
      codes.push(code);
      return undefined as never;
    }) as typeof process.exit);
    return codes;
  };

  it('runs the steps in order, says it stopped and exits 0', async () => {
    const codes = exits();
    const ran: string[] = [];
    const lines: string[] = [];
    await shutDownWithin([['a', async () => ran.push('a')], ['b', async () => ran.push('b')]], (line) => lines.push(line));
    expect(ran).toEqual(['a', 'b']);
    expect(lines).toEqual(['stopped']);
    expect(codes).toEqual([0]);
  });

  it('gives up on a step that hangs (a hung broker under the event log), naming it, and exits 4', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const codes = exits();
    const lines: string[] = [];
    void shutDownWithin([['closing the HTTP server', async () => {}], ['closing the backends', () => new Promise(() => {})]], (line) => lines.push(line), 10_000);
    await vi.advanceTimersByTimeAsync(9_900);
    expect(codes).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    expect(codes).toEqual([4]);
    expect(lines).toEqual([expect.stringMatching(/^shutdown: closing the backends did not finish within 10 s; exiting without it/)]);
  });
});
