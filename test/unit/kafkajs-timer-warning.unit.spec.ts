import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runNode } from '../support/cli.js';

const MODULE = fileURLToPath(new URL('../../platform/events/kafkajs-timer-warning.ts', import.meta.url));

/** A process that emits the warning kafkajs' request queue causes on Node 24 (emitted by hand: Node 20 does not warn), then another. */
async function warningsPrinted(drop: boolean): Promise<string> {
  const script = `
    const { dropKafkajsNegativeTimeoutWarnings } = await import(${JSON.stringify(MODULE)});
    if (${drop}) dropKafkajsNegativeTimeoutWarnings();
    const fromKafkajs = new Error('-1796054401942 is a negative number.\\nTimeout duration was set to 1.');
    fromKafkajs.name = 'TimeoutNegativeWarning';
    fromKafkajs.stack = 'TimeoutNegativeWarning: ' + fromKafkajs.message + '\\n    at new Timeout (node:internal/timers:195:17)\\n    at RequestQueue.scheduleCheckPendingRequests (/srv/app/node_modules/kafkajs/src/network/requestQueue/index.js:317:37)';
    process.emitWarning(fromKafkajs);
    const ours = new Error('-5 is a negative number.');
    ours.name = 'TimeoutNegativeWarning';
    process.emitWarning(ours);
    process.emitWarning('something else', 'ExampleWarning');
  `;
  const child = await runNode(['--import', 'tsx', '--input-type=module', '-e', script], { env: process.env });
  expect(child.status, child.stderr).toBe(0);
  return child.stderr;
}

describe("kafkajs' negative timer warnings", () => {
  it('are dropped, while every other warning still prints, a negative timer outside kafkajs too', async () => {
    const printed = await warningsPrinted(true);
    expect(printed).not.toContain('-1796054401942');
    expect(printed).toContain('TimeoutNegativeWarning: -5 is a negative number.');
    expect(printed).toContain('ExampleWarning: something else');
  });

  it('print without it (the test sees the warning it removes)', async () => {
    expect(await warningsPrinted(false)).toContain('TimeoutNegativeWarning: -1796054401942 is a negative number.');
  });
});
