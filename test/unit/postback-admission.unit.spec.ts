import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../platform/metrics/metrics.js';
import { postbackAdmission } from '../../services/api/routes/postbacks/admission.js';

function admissionOf(limit: number) {
  const metrics = createMetrics();
  const warnings: string[] = [];
  const log = { warn: (_fields: unknown, line: string) => warnings.push(line) } as unknown as FastifyBaseLogger;
  const admission = postbackAdmission(limit, metrics, () => log);
  const refusals = async () => (await metrics.postbackOverloadRefusals.get()).values[0]?.value ?? 0;
  const inFlightGauge = async () => (await metrics.postbacksInFlight.get()).values[0]?.value ?? 0;
  return { admission, warnings, refusals, inFlightGauge };
}

describe('postback admission', () => {
  it('admits up to the limit, refuses the next ones (counted, said once), and admits again once a slot is free', async () => {
    const { admission, warnings, refusals, inFlightGauge } = admissionOf(2);
    const first = admission.admit()!;
    expect(admission.admit()).toBeDefined();
    expect(admission.admit()).toBeUndefined();
    expect(admission.admit()).toBeUndefined();
    expect(await refusals()).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(await inFlightGauge()).toBe(2);
    first.answered();
    expect(admission.inFlight).toBe(1);
    expect(admission.admit()).toBeDefined();
    admission.close();
  });

  it('keeps the slot of an intake still running after its client hung up, and frees it once, when both are over', async () => {
    const { admission } = admissionOf(1);
    const admitted = admission.admit()!;
    let finish!: () => void;
    const intake = admitted.hold(() => new Promise<void>((resolve) => (finish = resolve)));
    // The connection closed while the intake runs: its work still takes the process's time.
    admitted.answered();
    admitted.answered();
    expect(admission.inFlight).toBe(1);
    expect(admission.admit()).toBeUndefined();
    finish();
    await intake;
    expect(admission.inFlight).toBe(0);
    expect(admission.admit()).toBeDefined();
    admission.close();
  });

  it('frees the slot when the intake fails', async () => {
    const { admission } = admissionOf(1);
    const admitted = admission.admit()!;
    await expect(admitted.hold(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    admitted.answered();
    expect(admission.inFlight).toBe(0);
    admission.close();
  });
});
