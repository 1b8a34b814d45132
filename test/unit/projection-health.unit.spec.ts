import { describe, expect, it } from 'vitest';
import { projectionHealth } from '../../services/projector/projection-health.js';

describe("a projector's readiness of its projections", () => {
  const lags = (entries: [string, number][]) => async () => new Map(entries);

  it('is not ready while starting, then ready', async () => {
    const health = projectionHealth(() => 0);
    await expect(health.check()).rejects.toThrow('starting: the projections are joining the log');
    health.started(lags([['ledger', 0]]));
    await expect(health.check()).resolves.toBeUndefined();
  });

  it('names a failing projection until it applies a batch, or until 30 s pass without another error', async () => {
    let now = 1_000;
    const health = projectionHealth(() => now);
    health.started(lags([]));
    health.failed('ledger', new Error('relation "conversions" does not exist'));
    health.failed('serves', new Error('connection terminated'));
    await expect(health.check()).rejects.toThrow('failing, retried: ledger (relation "conversions" does not exist); serves (connection terminated)');
    health.applied('ledger');
    await expect(health.check()).rejects.toThrow(/^failing, retried: serves \(connection terminated\)$/);
    now += 29_999;
    await expect(health.check()).rejects.toThrow(/serves/);
    now += 1;
    await expect(health.check()).resolves.toBeUndefined();
  });

  it('names a projection with events to apply that applied none for 15 s, without any error (a session that stopped answering)', async () => {
    let now = 0;
    const health = projectionHealth(() => now);
    let ledgerLag = 0;
    health.started(async () => new Map([['ledger', ledgerLag], ['serves', 0]]));
    now = 60_000;
    // Idle with nothing to apply is ready.
    await expect(health.check()).resolves.toBeUndefined();
    health.applied('ledger');
    ledgerLag = 12;
    now += 1_000;
    await expect(health.check()).resolves.toBeUndefined();
    now += 14_999;
    await expect(health.check()).resolves.toBeUndefined();
    now += 1;
    await expect(health.check()).rejects.toThrow(/^stalled: ledger has 12 events to apply and applied none for 15 s$/);
    health.applied('ledger');
    await expect(health.check()).resolves.toBeUndefined();
  });

  it('counts from when a check first saw events to apply: one idle for minutes that was just handed an event is ready', async () => {
    let now = 0;
    const health = projectionHealth(() => now);
    let offersLag = 0;
    health.started(async () => new Map([['offers', offersLag]]));
    health.applied('offers');
    now = 50_000;
    await expect(health.check()).resolves.toBeUndefined();
    // An event arrives after 50 s without any (a broker back from a hang).
    offersLag = 1;
    await expect(health.check()).resolves.toBeUndefined();
    now += 1_000;
    await expect(health.check()).resolves.toBeUndefined();
    // Caught up, then behind again: counted afresh.
    offersLag = 0;
    now += 20_000;
    await expect(health.check()).resolves.toBeUndefined();
    offersLag = 3;
    await expect(health.check()).resolves.toBeUndefined();
    now += 15_000;
    await expect(health.check()).rejects.toThrow(/^stalled: offers has 3 events to apply and applied none for 15 s$/);
  });

  it('counts afresh after a batch applied between checks: checks far apart do not see a stall that was not there', async () => {
    let now = 0;
    const health = projectionHealth(() => now);
    let ledgerLag = 4;
    health.started(async () => new Map([['ledger', ledgerLag]]));
    await expect(health.check()).resolves.toBeUndefined();
    // Caught up a second later, with no check to see it; a new event 30 s on.
    now = 1_000;
    health.applied('ledger');
    now = 30_000;
    ledgerLag = 1;
    await expect(health.check()).resolves.toBeUndefined();
    now += 14_999;
    await expect(health.check()).resolves.toBeUndefined();
    now += 1;
    await expect(health.check()).rejects.toThrow(/^stalled: ledger has 1 events to apply and applied none for 15 s$/);
  });
});
