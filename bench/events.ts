import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../platform/config/config.js';
import type { Db } from '../platform/db/db.js';
import type { NewEvent } from '../platform/events/event-log.js';
import { registryCodec } from '../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../platform/events/schema-catalog.js';
import { startProjection } from '../platform/projection/runner.js';
import { openRuntime, type Runtime } from '../platform/runtime.js';
import { catalogEntriesProjection } from '../projections/catalog-entries/projection.js';
import { partitionsOf } from '../schemas/topics.js';
import { catalogEvents } from '../test/support/catalog-events.js';
import { resolveStack, type StackEndpoints } from '../test/support/stack.js';
import { benchDatabase, kafkaBenchRuntime, printTable, rate, rawKafkaProducer, timed, writeResults, type BenchRow } from './support.js';

/**
 * Appended and projected events per second on both logs, each next to a raw baseline measured
 * in the same run: a raw kafkajs send (acks=all) of the same bytes for Kafka appends, a raw
 * INSERT of the same bytes for embedded appends, and a raw set-based INSERT ... SELECT FROM
 * unnest(...) of the same rows for projection.
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const BATCH = 1_000;

function chunks<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size));
}

async function appendAll(runtime: Runtime, events: NewEvent[]) {
  for (const chunk of chunks(events, BATCH)) await runtime.eventLog.append('catalog', chunk);
}

/**
 * Runs the projection from the start of the log until it has caught up. Returns the whole time
 * and the steady-state time after the first batch, since joining a Kafka consumer group is a
 * one-off cost of a few seconds that says nothing about projection speed.
 */
async function projectAll(runtime: Runtime, total: number): Promise<{ totalMs: number; steadyMs: number; steadyEvents: number }> {
  const start = performance.now();
  let firstAppliedAt = 0;
  let firstBatchSize = 0;
  let applied = 0;
  let caughtUp: () => void = () => {};
  const done = new Promise<void>((resolve) => (caughtUp = resolve));
  const running = await startProjection(catalogEntriesProjection, {
    db: runtime.db,
    eventLog: runtime.eventLog,
    onBatchApplied: (_name, _batch, count) => {
      if (firstAppliedAt === 0) {
        firstAppliedAt = performance.now();
        firstBatchSize = count;
      }
      applied += count;
      if (applied >= total) caughtUp();
    },
  });
  await done;
  const end = performance.now();
  await running.stop();
  return { totalMs: end - start, steadyMs: end - firstAppliedAt, steadyEvents: total - firstBatchSize };
}

async function projectionRows(backend: string, runtime: Runtime, events: NewEvent[]): Promise<BenchRow[]> {
  const rawInsert = await timed(() => rawUnnestInsert(runtime.db, events));
  const projected = await projectAll(runtime, events.length);
  const baseline = { baseline: 'raw INSERT ... unnest, same rows', baseline_per_second: rate(events.length, rawInsert) };
  return [
    { backend, measure: 'project (steady, after first batch)', events: projected.steadyEvents, per_second: rate(projected.steadyEvents, projected.steadyMs), ...baseline },
    { backend, measure: 'project (from cold start)', events: events.length, per_second: rate(events.length, projected.totalMs), ...baseline },
  ];
}

/** The same rows the projection writes, inserted set-based with no log, decoding or offsets. */
async function rawUnnestInsert(db: Db, events: NewEvent[]) {
  // A logged table with a key, like the read model: the baseline pays for durability too.
  await db.exec(`CREATE TABLE IF NOT EXISTS raw_catalog_rows (
    entry_id text NOT NULL, name text NOT NULL, amount numeric NOT NULL, currency text NOT NULL, tags jsonb NOT NULL,
    recorded_at timestamptz NOT NULL, event_id text PRIMARY KEY)`);
  for (const chunk of chunks(events, BATCH)) {
    const values = chunk.map((event) => event.value);
    await db.query(
      `INSERT INTO raw_catalog_rows SELECT entry_id, name, amount, currency, tags::jsonb, recorded_at, event_id
       FROM unnest($1::text[], $2::text[], $3::numeric[], $4::text[], $5::text[], $6::timestamptz[], $7::text[])
         AS batch(entry_id, name, amount, currency, tags, recorded_at, event_id)`,
      [
        values.map((v) => v.entry_id),
        values.map((v) => v.name ?? ''),
        values.map((v) => v.amount ?? '0'),
        values.map((v) => v.currency ?? ''),
        values.map((v) => JSON.stringify(v.tags ?? [])),
        values.map((v) => new Date(Number(v.recorded_at ?? v.removed_at)).toISOString()),
        values.map((v) => v.event_id),
      ],
    );
  }
}

async function rawKafkaSend(stack: StackEndpoints, topic: string, events: NewEvent[]) {
  const codec = registryCodec(stack.schemaRegistryUrl, loadSchemaCatalog());
  const messages = await Promise.all(
    events.map(async (event) => ({ key: event.key, value: await codec.encode(topic, event.type, event.value) })),
  );
  const producer = await rawKafkaProducer(stack, topic, partitionsOf('catalog'));
  try {
    return await timed(async () => {
      for (const chunk of chunks(messages, BATCH)) await producer.send({ topic, acks: -1, messages: chunk });
    });
  } finally {
    await producer.disconnect();
  }
}

async function rawEmbeddedInsert(runtime: Runtime, events: NewEvent[]) {
  const codec = loadSchemaCatalog();
  const bytes = events.map((event) => codec.get(event.type)!.avroType.toBuffer(event.value).toString('hex'));
  // Keyed by position like the log table, so the baseline pays for the same index.
  await runtime.db.exec('CREATE TABLE IF NOT EXISTS raw_log (position bigint PRIMARY KEY, key text NOT NULL, value bytea NOT NULL)');
  return timed(async () => {
    for (let start = 0; start < events.length; start += BATCH) {
      await runtime.db.query(
        `INSERT INTO raw_log SELECT $1::bigint + ordinal, key, decode(value_hex, 'hex')
         FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS b(key, value_hex, ordinal)`,
        [start, events.slice(start, start + BATCH).map((event) => event.key), bytes.slice(start, start + BATCH)],
      );
    }
  });
}

export async function run(): Promise<BenchRow[]> {
  const stack = await resolveStack((line) => process.stderr.write(`[stack] ${line}\n`));
  const events = catalogEvents(EVENTS, Math.floor(EVENTS / 5));
  const rows: BenchRow[] = [];

  // Kafka + registry + Postgres.
  const database = await benchDatabase(stack);
  const { runtime: kafkaRuntime, prefix } = await kafkaBenchRuntime(stack, database.url);
  try {
    const raw = await rawKafkaSend(stack, `${prefix}raw-catalog`, events);
    const append = await timed(() => appendAll(kafkaRuntime, events));
    rows.push({ backend: 'kafka', measure: 'append (acks=all)', events: EVENTS, per_second: rate(EVENTS, append), baseline: 'raw kafkajs send, same bytes', baseline_per_second: rate(EVENTS, raw) });
    rows.push(...(await projectionRows('kafka', kafkaRuntime, events)));
  } finally {
    await kafkaRuntime.close();
    await database.drop();
  }

  // The embedded default: PGlite holds the log and the read models.
  const dataDir = mkdtempSync(join(tmpdir(), 'offer-ledger-bench-'));
  const embedded = await openRuntime(loadConfig({ DATA_DIR: dataDir }));
  try {
    const raw = await rawEmbeddedInsert(embedded, events);
    const append = await timed(() => appendAll(embedded, events));
    rows.push({ backend: 'embedded', measure: 'append', events: EVENTS, per_second: rate(EVENTS, append), baseline: 'raw INSERT of the same bytes', baseline_per_second: rate(EVENTS, raw) });
    rows.push(...(await projectionRows('embedded', embedded, events)));
  } finally {
    await embedded.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await run();
  printTable('events', rows);
  writeResults('events', rows);
}
