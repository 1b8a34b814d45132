import type { FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { logBackendFailure } from '../../platform/http/backend-failure-log.js';

describe('logBackendFailure', () => {
  const capture = () => {
    const lines: { level: string; fields: Record<string, unknown>; line: string }[] = [];
    const at = (level: string) => (fields: Record<string, unknown>, line: string) => lines.push({ level, fields, line });
    return { lines, log: { warn: at('warn'), error: at('error') } as unknown as FastifyBaseLogger };
  };

  it('warns with the backend\'s own message, no stack, for a backend that failed or did not answer', () => {
    const { lines, log } = capture();
    const timeout = Object.assign(new Error('Request Metadata(key: 3, version: 6) timed out'), { name: 'KafkaJSRequestTimeoutError' });
    logBackendFailure(log, timeout, 'query failed');
    expect(lines).toEqual([{ level: 'warn', fields: { failure: 'KafkaJSRequestTimeoutError: Request Metadata(key: 3, version: 6) timed out' }, line: 'query failed' }]);
  });

  it('logs an error with its stack for a failure of our code', () => {
    const { lines, log } = capture();
    const bug = new TypeError("Cannot read properties of undefined (reading 'offer_id')");
    logBackendFailure(log, bug, 'link could not be opened');
    expect(lines).toEqual([{ level: 'error', fields: { err: bug }, line: 'link could not be opened' }]);
  });

  it('keeps the fields a process logs with each line (the projector\'s event name)', () => {
    const { lines, log } = capture();
    logBackendFailure(log, new Error('Connection terminated unexpectedly'), 'could not check whether the projections caught up', { event: 'lag_check_failed' });
    expect(lines).toEqual([{ level: 'warn', fields: { event: 'lag_check_failed', failure: 'Error: Connection terminated unexpectedly' }, line: 'could not check whether the projections caught up' }]);
  });
});
