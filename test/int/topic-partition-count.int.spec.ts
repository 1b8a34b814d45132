import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestRuntime, testEnvironment, type TestRuntime } from '../support/app.js';
import type { ServiceProcess } from '../support/child-process.js';
import { startProjector } from '../support/service-processes.js';
import { freePort } from '../support/stack.js';

/**
 * A topic's partition count is part of its design (schemas/topics.ts): partitions added to a
 * topic in use send a key's later events to another partition than its earlier ones. A process
 * starting on such a topic says so at warn level, and as a gauge; it still starts (Kafka cannot
 * take partitions away, and the topic is readable as it is).
 */
describe('a topic whose partitions were added after it was created', () => {
  const stack = inject('stack');
  let t: TestRuntime;
  let projector: ServiceProcess | undefined;

  beforeAll(async () => {
    // Creates every topic with its designed count, as the first process on the cluster does.
    t = await createTestRuntime({ eventLog: 'kafka' });
  });
  afterAll(async () => {
    await projector?.stop('SIGTERM');
    await t?.close();
  });

  it('is named at warn level when a process starts, with what it means, and as event_log_partitions_unlike_design', async () => {
    const admin = new Kafka({ brokers: stack.kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      await admin.createPartitions({ topicPartitions: [{ topic: `${t.topicPrefix}accounts`, count: 5 }] });
    } finally {
      await admin.disconnect();
    }

    const port = await freePort();
    projector = await startProjector({ ...testEnvironment(t.database, t.topicPrefix, { eventLog: 'kafka' }), PROJECTOR_PORT: String(port), HOST: '127.0.0.1' });
    // Said while the process opened the log, before its projections started.
    const warnings = projector
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((entry) => entry.level === 40 && entry.msg.includes('partitions'));
    expect(warnings.map((entry) => entry.msg)).toEqual([expect.stringMatching(new RegExp(`^topic ${t.topicPrefix.replace('.', '\\.')}accounts has 5 partitions, not the 3 it is designed with: partitions were added to it`))]);
    expect(warnings[0]!.msg).toMatch(/may be applied out of order/);

    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^event_log_partitions_unlike_design\{topic="accounts"\} 1$/m);
    expect(metrics).toMatch(/^event_log_partitions_unlike_design\{topic="serves"\} 0$/m);
  }, 120_000);
});
