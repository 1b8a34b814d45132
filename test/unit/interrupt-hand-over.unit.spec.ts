import { describe, expect, it } from 'vitest';
import { runNode } from '../support/cli.js';

const start = () => runNode(['--import', 'tsx', 'test/support/interrupt-hand-over.ts'], { env: process.env, timeoutMs: 30_000 });

describe('the hand-over of Ctrl-C from a command entry point to its command', () => {
  it('gives the command a signal that arrived while the process was busy handing over', async () => {
    const result = await start();
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe('error: interrupted: heard by the command');
    expect(result.status).toBe(130);
  });
});
