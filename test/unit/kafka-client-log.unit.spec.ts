import { logLevel, type LogEntry } from 'kafkajs';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { kafkaClientLevel, kafkaClientLog, SETTLING_ERROR_MESSAGES, SETTLING_ERROR_TYPES } from '../../platform/events/kafka-client-log.js';

function capture(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  let now = 0;
  const log = kafkaClientLog(level, { logger, now: () => now, windowMs: 30_000 })(logLevel.ERROR);
  const entry = (message: string, extra: Record<string, unknown> = {}, level = logLevel.ERROR): LogEntry => ({
    namespace: 'Connection',
    level,
    label: 'ERROR',
    log: { timestamp: new Date(now).toISOString(), message, ...extra },
  });
  return { lines, log, entry, at: (ms: number) => void (now = ms) };
}

describe('the Kafka client\'s lines in the service log', () => {
  it('writes a repeated line once a window, the next one counting those left out', () => {
    const { lines, log, entry, at } = capture();
    const refused = (extra = {}) => entry('Connection error: connect ECONNREFUSED 127.0.0.1:9092', { broker: '127.0.0.1:9092', ...extra });
    for (let ms = 0; ms < 30_000; ms += 100) {
      at(ms);
      log(refused());
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'Kafka client (KAFKA_BROKERS): Connection error: connect ECONNREFUSED 127.0.0.1:9092', namespace: 'Connection', broker: '127.0.0.1:9092' });
    expect(lines[0]).not.toHaveProperty('left_out_since_last');
    at(30_000);
    log(refused());
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ left_out_since_last: 299 });
    // Another broker, or another message, is its own line.
    log(refused({ broker: '127.0.0.1:9093' }));
    log(entry('Failed to connect to seed broker'));
    expect(lines).toHaveLength(4);
  });

  it('keeps the error\'s first line, never its stack', () => {
    const { lines, log, entry } = capture();
    log(entry('Error when calling eachBatch', { error: 'Error: message is not in the Confluent wire format\n    at wireSchemaId (wire-format.ts:15:11)', stack: 'Error: …\n    at …' }));
    expect(lines[0]).toMatchObject({ error: 'Error: message is not in the Confluent wire format' });
    expect(JSON.stringify(lines[0])).not.toContain('wire-format.ts');
  });

  it('does not take a batch that failed in the handler (a database that stopped answering) for a broker error', () => {
    const { lines, log, entry } = capture();
    log(entry('Error when calling eachBatch', { topic: 'offer-ledger.clicks', partition: 0, error: 'Error: timeout exceeded when trying to connect' }));
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: 'Kafka client: applying a batch failed in this process, not in Kafka (the batch is read again): Error when calling eachBatch',
      error: 'Error: timeout exceeded when trying to connect',
    });
    expect(lines[0]!.msg).not.toContain('KAFKA_BROKERS');
  });

  it('writes the answers the client retries while leadership or a coordinator moves at debug, other broker errors at error', () => {
    const { lines, log, entry } = capture('debug');
    const response = (error: string) => entry('Response ListOffsets(key: 2, version: 3)', { broker: '127.0.0.1:9092', error });
    log(response('This server is not the leader for that topic-partition'));
    log(entry('Response OffsetFetch(key: 9, version: 4)', { error: 'This is not the correct coordinator for this group' }));
    log(entry('Response GroupCoordinator(key: 10, version: 2)', { error: 'The group coordinator is not available' }));
    log(entry('Response Produce(key: 0, version: 7)', { error: 'The server experienced an unexpected error when processing the request' }));
    expect(lines.map((line) => line.level)).toEqual([20, 20, 20, 50]);
    const { lines: atInfo, log: logAtInfo, entry: entryAtInfo } = capture('info');
    logAtInfo(entryAtInfo('Response InitProducerId(key: 22, version: 1)', { error: "The coordinator is loading and hence can't process requests for this group" }));
    expect(atInfo).toEqual([]);
    // Every type named is in the client's table (a renamed one would be logged at error again).
    expect(SETTLING_ERROR_MESSAGES.size).toBe(SETTLING_ERROR_TYPES.size);
  });

  it('follows LOG_LEVEL: silent says nothing, warn keeps the client\'s errors, debug adds its notes', () => {
    expect(kafkaClientLevel('silent')).toBe(logLevel.NOTHING);
    expect(kafkaClientLevel('fatal')).toBe(logLevel.NOTHING);
    expect(kafkaClientLevel('warn')).toBe(logLevel.ERROR);
    expect(kafkaClientLevel('info')).toBe(logLevel.ERROR);
    expect(kafkaClientLevel('debug')).toBe(logLevel.INFO);
    const { lines, log, entry } = capture('warn');
    log(entry('a note', {}, logLevel.INFO));
    expect(lines).toEqual([]);
  });
});
