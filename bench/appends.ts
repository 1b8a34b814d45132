import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, Partitioners, logLevel, type Message } from 'kafkajs';
import { uuidV7 } from '../platform/ids/uuid-v7.js';
import type { Db } from '../platform/db/db.js';
import { migrate } from '../platform/db/migrate.js';
import { openPglite } from '../platform/db/pglite.js';
import type { EventLog, NewEvent } from '../platform/events/event-log.js';
import { kafkaEventLog } from '../platform/events/kafka-event-log.js';
import { registryCodec } from '../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../platform/events/schema-catalog.js';
import { sqlCodec } from '../platform/events/sql-codec.js';
import { sqlEventLog } from '../platform/events/sql-event-log.js';
import { EventType } from '../schemas/generated/events.js';
import { partitionsOf } from '../schemas/topics.js';
import { offerServed } from '../test/support/serves.js';
import { resolveStack, type StackEndpoints } from '../test/support/stack.js';
import { benchDatabase, rate, type BenchRow } from './support.js';

/**
 * `npm run bench -- appends`: concurrent appends of one OfferServed each (one request's write),
 * appends/s and per-call latency, from CALLERS callers appending in a loop, and on Kafka also
 * offered at a fixed rate (PACED_RATE, the postback target) as requests arrive. Kafka: the event log
 * (appends of concurrent callers share produce requests) next to the unbatched path, one
 * idempotent `producer.send` (acks=all) per call of the same bytes, measured in the same run. The
 * SQL log (embedded PGlite and Postgres): batched next to one transaction per call.
 */
const CALLERS = (process.env.BENCH_CALLERS ?? '1,100').split(',').map(Number);
const APPENDS = Number(process.env.BENCH_APPENDS ?? 20_000);
/** The offered rate of the paced rows: the postback target. */
const PACED_RATE = Number(process.env.BENCH_RATE ?? 5_000);
const TOPIC = 'serves';
const schemas = loadSchemaCatalog();

interface Measured {
  perSecond: number;
  p50: number;
  p99: number;
}

function served(): NewEvent {
  const serve = offerServed('http://127.0.0.1:8080/l', { offer_id: uuidV7(), application_id: uuidV7() });
  return { key: serve.offer_instance_id, type: EventType.OfferServed, value: { ...serve } };
}

const percentile = (sorted: number[], p: number) => Number(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!.toFixed(2));

/** `callers` loops appending one item each until `total` appends are done; rate and latency. */
async function load<T>(items: T[], callers: number, append: (item: T) => Promise<unknown>): Promise<Measured> {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        const sent = performance.now();
        await append(item);
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const elapsed = performance.now() - start;
  latencies.sort((a, b) => a - b);
  return { perSecond: rate(items.length, elapsed), p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/**
 * Appends offered at a fixed rate whether or not earlier ones have finished (as requests arrive),
 * the latency counted from when each was due, so a backlog shows in it.
 */
async function paced<T>(items: T[], perSecond: number, append: (item: T) => Promise<unknown>): Promise<Measured> {
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  let next = 0;
  while (next < items.length) {
    const now = performance.now();
    for (; next < items.length && start + (next * 1000) / perSecond <= now; next += 1) {
      const due = start + (next * 1000) / perSecond;
      pending.push(append(items[next]!).then(() => void latencies.push(performance.now() - due)));
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  const elapsed = performance.now() - start;
  latencies.sort((a, b) => a - b);
  return { perSecond: rate(items.length, elapsed), p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

const appendsFor = (callers: number) => (callers === 1 ? Math.min(APPENDS, 2_000) : APPENDS);

function row(backend: string, callers: number | string, measure: string, measured: Measured, baseline: { name: string; measured: Measured }): BenchRow {
  return {
    backend,
    callers,
    measure,
    per_second: measured.perSecond,
    p50_ms: measured.p50,
    p99_ms: measured.p99,
    baseline: baseline.name,
    baseline_per_second: baseline.measured.perSecond,
    baseline_p99_ms: baseline.measured.p99,
  };
}

/** The unbatched path: one idempotent producer, one acks=all send per call, partitions chosen as the log does. */
async function unbatchedKafka(stack: StackEndpoints, prefix: string) {
  const topic = `${prefix}raw-${TOPIC}`;
  const codec = registryCodec(stack.schemaRegistryUrl, schemas);
  const kafka = new Kafka({ brokers: stack.kafkaBrokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: partitionsOf(TOPIC) }] });
  const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
  await admin.disconnect();
  const partitionFor = Partitioners.DefaultPartitioner();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  return {
    async encode(event: NewEvent): Promise<Message> {
      const partition = partitionFor({ topic, partitionMetadata: topics[0]!.partitions, message: { key: event.key, value: null } });
      return { key: event.key, value: await codec.encode(topic, event.type, event.value), partition };
    },
    send: (message: Message) => producer.send({ topic, acks: -1, messages: [message] }),
    close: () => producer.disconnect(),
  };
}

async function kafkaRows(stack: StackEndpoints): Promise<BenchRow[]> {
  const prefix = `bench${randomBytes(3).toString('hex')}.`;
  const unbatched = await unbatchedKafka(stack, prefix);
  const logs = new Map<number, EventLog>();
  for (const lingerMs of [0, 1]) {
    const log = await kafkaEventLog(registryCodec(stack.schemaRegistryUrl, schemas), { brokers: stack.kafkaBrokers, topicPrefix: `${prefix}l${lingerMs}.`, appendLingerMs: lingerMs });
    await log.ensureTopics([{ topic: TOPIC, partitions: partitionsOf(TOPIC) }]);
    logs.set(lingerMs, log);
  }
  const rows: BenchRow[] = [];
  try {
    // Warm up: registry ids cached, connections open, partition counts known.
    await unbatched.send(await unbatched.encode(served()));
    for (const log of logs.values()) await log.append(TOPIC, [served()]);
    for (const callers of CALLERS) {
      const messages = await Promise.all(Array.from({ length: appendsFor(callers) }, () => unbatched.encode(served())));
      const baseline = { name: 'producer.send per call (unbatched)', measured: await load(messages, callers, unbatched.send) };
      for (const [lingerMs, log] of logs) {
        const events = Array.from({ length: appendsFor(callers) }, served);
        const measured = await load(events, callers, (event) => log.append(TOPIC, [event]));
        rows.push(row('kafka', callers, `event log append, linger ${lingerMs} ms`, measured, baseline));
      }
    }
    const offered = `${PACED_RATE}/s offered`;
    const messages = await Promise.all(Array.from({ length: APPENDS }, () => unbatched.encode(served())));
    const baseline = { name: 'producer.send per call (unbatched)', measured: await paced(messages, PACED_RATE, unbatched.send) };
    for (const [lingerMs, log] of logs) {
      const measured = await paced(Array.from({ length: APPENDS }, served), PACED_RATE, (event) => log.append(TOPIC, [event]));
      rows.push(row('kafka', offered, `event log append, linger ${lingerMs} ms`, measured, baseline));
    }
  } finally {
    await unbatched.close();
    for (const log of logs.values()) await log.close();
  }
  return rows;
}

async function sqlRows(backend: string, db: Db): Promise<BenchRow[]> {
  const open = async (topicPrefix: string, batching?: { maxMessages: number }) => {
    const log = sqlEventLog(db, sqlCodec(db, schemas), { topicPrefix, batching });
    await log.ensureTopics([{ topic: TOPIC, partitions: 1 }]);
    await log.append(TOPIC, [served()]);
    return log;
  };
  const unbatched = await open('unbatched.', { maxMessages: 1 });
  const batched = await open('batched.');
  const rows: BenchRow[] = [];
  try {
    for (const callers of CALLERS) {
      const baseline = { name: 'one transaction per call (maxMessages 1)', measured: await load(Array.from({ length: appendsFor(callers) }, served), callers, (event) => unbatched.append(TOPIC, [event])) };
      const measured = await load(Array.from({ length: appendsFor(callers) }, served), callers, (event) => batched.append(TOPIC, [event]));
      rows.push(row(backend, callers, 'event log append, batched', measured, baseline));
    }
  } finally {
    await unbatched.close();
    await batched.close();
  }
  return rows;
}

export async function run(): Promise<BenchRow[]> {
  const stack = await resolveStack((line) => process.stderr.write(`[stack] ${line}\n`));
  const rows = await kafkaRows(stack);

  const dataDir = mkdtempSync(join(tmpdir(), 'offer-ledger-bench-'));
  const pglite = await openPglite(join(dataDir, 'pg'));
  try {
    await migrate(pglite);
    rows.push(...(await sqlRows('embedded (PGlite)', pglite)));
  } finally {
    await pglite.close();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const database = await benchDatabase(stack);
  try {
    rows.push(...(await sqlRows('postgres', database.db)));
  } finally {
    await database.drop();
  }
  return rows;
}
