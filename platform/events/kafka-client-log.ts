import { createRequire } from 'node:module';
import { logLevel, type LogEntry, type logCreator } from 'kafkajs';
import pino, { type Logger } from 'pino';

/**
 * Broker answers the client retries by itself while leadership or a group coordinator moves (every
 * start creates topics and groups; a broker restart moves them too). The client logs each one at its
 * error level; they are written at debug, since an operator can do nothing about them and a move
 * that never settles surfaces as the failing operation's own error. Read from the client's own
 * error table by type, so the messages match whatever its version says.
 */
export const SETTLING_ERROR_TYPES = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'NOT_LEADER_FOR_PARTITION',
  'GROUP_LOAD_IN_PROGRESS',
  'GROUP_COORDINATOR_NOT_AVAILABLE',
  'NOT_COORDINATOR_FOR_GROUP',
  'REBALANCE_IN_PROGRESS',
]);
const { errorCodes } = createRequire(import.meta.url)('kafkajs/src/protocol/error') as { errorCodes: { type: string; message: string }[] };
export const SETTLING_ERROR_MESSAGES = new Set(errorCodes.filter((code) => SETTLING_ERROR_TYPES.has(code.type)).map((code) => code.message));

/**
 * The client's line for an error thrown by this process's batch handler (it says it for those
 * alone, not for its own errors): a database that stopped answering while a projector or a
 * replay applied a batch was written as a Kafka error naming KAFKA_BROKERS.
 */
const HANDLER_FAILED = 'Error when calling eachBatch';
const HANDLER_FAILED_SAID = 'Kafka client: applying a batch failed in this process, not in Kafka (the batch is read again): ';

/** How long a repeated client line (the same message about the same broker) is counted instead of written. */
const REPEAT_WINDOW_MS = 30_000;
/** Distinct lines remembered at most; the oldest windows are forgotten first. */
const REMEMBERED_LINES = 1_000;

/** The Kafka client's level for a LOG_LEVEL: its warnings and notes are chatty, so errors only unless debugging. */
export function kafkaClientLevel(level: string): logLevel {
  if (level === 'silent' || level === 'fatal') return logLevel.NOTHING;
  if (level === 'debug' || level === 'trace') return logLevel.INFO;
  return logLevel.ERROR;
}

const PINO_LEVEL: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** The fields of a client line worth keeping: where it happened and the error's first line, never its stack. */
function fieldsOf(entry: LogEntry): Record<string, unknown> {
  const { broker, topic, partition, groupId, error, retryCount, retryTime } = entry.log as Record<string, unknown>;
  const fields: Record<string, unknown> = { namespace: entry.namespace };
  for (const [name, value] of Object.entries({ broker, topic, partition, groupId, retryCount, retryTime })) if (value !== undefined) fields[name] = value;
  if (error !== undefined) fields.error = String(error).split('\n')[0];
  return fields;
}

/**
 * The Kafka client's lines as pino JSON at LOG_LEVEL, on stderr where its own format went (a
 * tool's stdout stays its own), condensed: while a broker is down the client says the same thing
 * many times a second, so a line is written once per REPEAT_WINDOW_MS for the same message about
 * the same broker, the next one saying how many were left out meanwhile.
 */
export function kafkaClientLog(level: string, options: { logger?: Logger; now?: () => number; windowMs?: number } = {}): logCreator {
  const logger = options.logger ?? pino({ level, base: { component: 'kafka-client' } }, pino.destination({ dest: 2, sync: true }));
  const now = options.now ?? Date.now;
  const windowMs = options.windowMs ?? REPEAT_WINDOW_MS;
  const windows = new Map<string, { startedAt: number; leftOut: number }>();
  return () => (entry) => {
    const settling = typeof entry.log.error === 'string' && SETTLING_ERROR_MESSAGES.has(entry.log.error);
    const method = settling ? 'debug' : PINO_LEVEL[entry.level];
    if (!method) return;
    const fields = fieldsOf(entry);
    const key = `${entry.namespace}\u0000${entry.log.message}\u0000${String(fields.broker ?? '')}`;
    const at = now();
    const window = windows.get(key);
    if (window && at - window.startedAt < windowMs) {
      window.leftOut += 1;
      return;
    }
    windows.delete(key);
    if (windows.size >= REMEMBERED_LINES) windows.delete(windows.keys().next().value!);
    windows.set(key, { startedAt: at, leftOut: 0 });
    const repeated = window && window.leftOut > 0 ? { left_out_since_last: window.leftOut } : {};
    logger[method]({ ...fields, ...repeated }, `${entry.log.message === HANDLER_FAILED ? HANDLER_FAILED_SAID : 'Kafka client (KAFKA_BROKERS): '}${entry.log.message}`);
  };
}
