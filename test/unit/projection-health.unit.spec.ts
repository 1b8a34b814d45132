import { describe, expect, it } from 'vitest';
import { projectionHealth } from '../../services/projector/projection-health.js';

describe("a projector's readiness of its projections", () => {
  it('is not ready while starting, then ready', () => {
    const health = projectionHealth(() => 0);
    expect(() => health.check()).toThrow('starting: the projections are joining the log');
    health.started();
    expect(() => health.check()).not.toThrow();
  });

  it('names a failing projection until it applies a batch, or until 30 s pass without another error', () => {
    let now = 1_000;
    const health = projectionHealth(() => now);
    health.started();
    health.failed('ledger', new Error('relation "conversions" does not exist'));
    health.failed('serves', new Error('connection terminated'));
    expect(() => health.check()).toThrow('failing, retried: ledger (relation "conversions" does not exist); serves (connection terminated)');
    health.applied('ledger');
    expect(() => health.check()).toThrow(/^failing, retried: serves \(connection terminated\)$/);
    now += 29_999;
    expect(() => health.check()).toThrow(/serves/);
    now += 1;
    expect(() => health.check()).not.toThrow();
  });
});
