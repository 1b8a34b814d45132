import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommandUnavailableError, type Command } from '../../commands/command.js';
import { ReadModelsBehindError } from '../../platform/projection/catch-up.js';
import type { Runtime } from '../../platform/runtime.js';
import { hungLog } from '../support/hung-log.js';
import { COMMAND_MAY_BE_WRITTEN, COMMAND_NOT_STARTED, commandExecutor } from '../../services/admin/command-executor.js';

/**
 * An admin command whose work does not end (a log that cannot take writes) answers its caller
 * 503 after 5 s instead of holding it for as long as the Kafka client retries; commands behind it
 * keep their order, and one whose caller was answered while it waited for its turn never runs.
 * The commands are fakes whose work is a promise the test settles; no read model is waited for.
 */
describe('admin commands with a deadline', () => {
  afterEach(() => vi.useRealTimers());

  // One process with its database to itself (embedded): its queue alone orders commands.
  const runtime = { watermarks: async () => ({}), db: { engine: 'pglite' } } as unknown as Runtime;
  const settleLater = () => {
    let settle!: (value: Record<string, unknown>) => void;
    const work = new Promise<Record<string, unknown>>((resolve) => (settle = resolve));
    return { work, settle };
  };
  const commandOf = (name: string, execute: () => Promise<Record<string, unknown>>): Command => ({
    name,
    summary: name,
    input: Type.Object({}, { additionalProperties: false }),
    reads: [],
    writes: [],
    execute,
  });
  const outcome = (answer: Promise<Record<string, unknown>>) => answer.then((value) => ({ value }), (error: unknown) => ({ error }));

  it('answers 503 after 5 s, saying the command may still be written, and runs the next one only once that work ends', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const hanging = settleLater();
    const started: string[] = [];
    const commands = commandExecutor(runtime, { projections: [] });
    const first = outcome(commands.run(commandOf('first', () => (started.push('first'), hanging.work)), {}));
    const second = outcome(commands.run(commandOf('second', async () => (started.push('second'), { ran: 'second' })), {}));

    await vi.advanceTimersByTimeAsync(4_900);
    expect(started).toEqual(['first']);
    await vi.advanceTimersByTimeAsync(200);
    const refused = (await first) as { error: CommandUnavailableError };
    expect(refused.error).toBeInstanceOf(CommandUnavailableError);
    expect(refused.error).toMatchObject({ code: 'COMMAND_UNAVAILABLE', message: COMMAND_MAY_BE_WRITTEN });

    // The first command's work is still going (its append may land): the second waits for it.
    await vi.advanceTimersByTimeAsync(2_000);
    expect(started).toEqual(['first']);
    hanging.settle({ ran: 'first' });
    expect(await second).toEqual({ value: { ran: 'second' } });
    expect(started).toEqual(['first', 'second']);
  });

  it('refuses a command that waited 10 s for its turn, and never runs it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const hanging = settleLater();
    const started: string[] = [];
    const commands = commandExecutor(runtime, { projections: [] });
    const first = outcome(commands.run(commandOf('first', () => (started.push('first'), hanging.work)), {}));
    const queued = outcome(commands.run(commandOf('queued', async () => (started.push('queued'), {})), {}));

    await vi.advanceTimersByTimeAsync(10_100);
    expect(await first).toMatchObject({ error: { code: 'COMMAND_UNAVAILABLE' } });
    const refused = (await queued) as { error: CommandUnavailableError };
    expect(refused.error).toMatchObject({ code: 'COMMAND_UNAVAILABLE', message: COMMAND_NOT_STARTED });

    hanging.settle({});
    const later = await commands.run(commandOf('later', async () => (started.push('later'), { ran: 'later' })), {});
    expect(later).toEqual({ ran: 'later' });
    expect(started).toEqual(['first', 'later']);
  });

  it('answers a command queued behind one held by a log that does not answer within about 11 s, not 20 (the turn and the catch-up share one budget)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const hung = hungLog();
    const commands = commandExecutor(hung.runtime, { projections: [hung.accounts] });
    const reading = (name: string): Command => ({ ...commandOf(name, async () => ({ ran: name })), reads: ['accounts'] });
    const first = outcome(commands.run(reading('first'), {}));
    await vi.advanceTimersByTimeAsync(1_000);
    // Sent a second later: it waits 9 s for its turn, less than the 10 s that would refuse it.
    const queued = outcome(commands.run(reading('queued'), {}));
    let answered: unknown;
    void queued.then((result) => (answered = result));

    await vi.advanceTimersByTimeAsync(9_100);
    expect(await first).toMatchObject({ error: expect.any(ReadModelsBehindError) });
    expect(answered).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(answered).toMatchObject({ error: expect.any(Error) });
    expect(answered).not.toHaveProperty('value');
  });

  it.each([
    ['forward', 600_000],
    ['back', -600_000],
  ])('keeps the shared budget of a queued command when the wall clock steps %s while it waits its turn', async (_direction, step) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const hung = hungLog();
    const hanging = settleLater();
    const commands = commandExecutor(hung.runtime, { projections: [hung.accounts] });
    const first = outcome(commands.run(commandOf('first', () => hanging.work), {}));
    const queued = outcome(commands.run({ ...commandOf('queued', async () => ({ ran: 'queued' })), reads: ['accounts'] }, {}));
    let answered: unknown;
    void queued.then((result) => (answered = result));
    await vi.advanceTimersByTimeAsync(3_000);
    vi.setSystemTime(Date.now() + step);
    hanging.settle({ ran: 'first' });
    expect(await first).toEqual({ value: { ran: 'first' } });

    // 7 s of its 10 s are left for the catch-up, which the log never lets end.
    await vi.advanceTimersByTimeAsync(6_900);
    expect(answered).toBeUndefined();
    await vi.advanceTimersByTimeAsync(200);
    expect(answered).toMatchObject({ error: expect.any(ReadModelsBehindError) });
  });

  it('answers a command whose work ends in time with its result', async () => {
    const commands = commandExecutor(runtime, { projections: [] });
    expect(await commands.run(commandOf('quick', async () => ({ ok: true })), {})).toEqual({ ok: true });
  });
});
