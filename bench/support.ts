import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import pg from 'pg';
import type { Db } from '../platform/db/db.js';
import { migrate } from '../platform/db/migrate.js';
import { connectPostgres } from '../platform/db/postgres.js';
import { loadConfig } from '../platform/config/config.js';
import { decodeInOrder } from '../platform/events/codec.js';
import { registryCodec } from '../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../platform/events/schema-catalog.js';
import { openRuntime, type Runtime } from '../platform/runtime.js';
import type { StackEndpoints } from '../test/support/stack.js';

export interface BenchRow {
  [column: string]: string | number;
}

/** Milliseconds taken by fn. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export const rate = (count: number, milliseconds: number) => Math.round((count * 1000) / milliseconds);

/** The middle item of `list` ordered by `by` (the upper middle of an even count). */
export const median = <T>(list: readonly T[], by: (item: T) => number): T => [...list].sort((a, b) => by(a) - by(b))[Math.floor(list.length / 2)]!;

/** Adds the ratio column: the figure we track, since absolute rates vary between machines. */
function withRatio(row: BenchRow): BenchRow {
  const value = Number(row.per_second);
  const baseline = Number(row.baseline_per_second);
  return baseline > 0 ? { ...row, ratio: Number((value / baseline).toFixed(2)) } : row;
}

export function printTable(title: string, rows: BenchRow[]) {
  const table = rows.map(withRatio);
  const columns = [...new Set(table.flatMap((row) => Object.keys(row)))];
  const widths = columns.map((column) => Math.max(column.length, ...table.map((row) => String(row[column] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, index) => cell.padEnd(widths[index]!)).join(' | ');
  process.stdout.write(`\n## ${title}\n${line(columns)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n`);
  for (const row of table) process.stdout.write(`${line(columns.map((column) => String(row[column] ?? '')))}\n`);
}

export function writeResults(name: string, rows: BenchRow[]) {
  mkdirSync('bench-results', { recursive: true });
  const path = `bench-results/${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(path, `${JSON.stringify({ name, at: new Date().toISOString(), rows: rows.map(withRatio) }, null, 2)}\n`);
  process.stdout.write(`wrote ${path}\n`);
}

/** A fresh, migrated database on the stack's Postgres for one benchmark. */
export async function benchDatabase(stack: StackEndpoints): Promise<{ db: Db; url: string; drop(): Promise<void> }> {
  const name = `offer_ledger_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: stack.postgresAdminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(stack.postgresAdminUrl);
  url.pathname = `/${name}`;
  const db = connectPostgres(url.toString());
  await migrate(db);
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      const client = new pg.Client({ connectionString: stack.postgresAdminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * The raw baseline of Kafka appends: a scratch topic of `partitions` and a connected producer
 * configured as the service's own (idempotent, one request in flight; send with acks -1).
 */
export async function rawKafkaProducer(stack: StackEndpoints, topic: string, partitions: number): Promise<Producer> {
  const kafka = new Kafka({ brokers: stack.kafkaBrokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: partitions }] });
  await admin.disconnect();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  return producer;
}

/** A runtime on Kafka, the registry and the bench database, with topics of a fresh prefix of its own. */
export async function kafkaBenchRuntime(stack: StackEndpoints, databaseUrl: string): Promise<{ runtime: Runtime; prefix: string }> {
  const prefix = `bench${randomBytes(3).toString('hex')}.`;
  const runtime = await openRuntime(
    loadConfig({
      DATABASE_URL: databaseUrl,
      KEY_HASH_SECRET: 'bench-key-hash-secret-0123456789abcdef',
      KAFKA_BROKERS: stack.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
      TOPIC_PREFIX: prefix,
    }),
  );
  return { runtime, prefix };
}

/**
 * The raw baseline of Kafka reads: a consumer group of its own reading `topics` (physical names)
 * from the beginning, decoding every message (Avro through the registry) and nothing else, until
 * `events` are decoded. Milliseconds, joining the group included.
 */
export async function rawDecode(stack: StackEndpoints, topics: string[], events: number): Promise<number> {
  const codec = registryCodec(stack.schemaRegistryUrl, loadSchemaCatalog());
  const kafka = new Kafka({ brokers: stack.kafkaBrokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `bench-raw-decode.${randomBytes(6).toString('hex')}`, maxWaitTimeInMs: 100 });
  return timed(async () => {
    let decoded = 0;
    let finish: () => void = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    await consumer.connect();
    await consumer.subscribe({ topics, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        // Decoded as the service decodes: at once, waiting only for a schema not met before.
        await decodeInOrder(
          codec,
          batch.messages.map((message) => message.value!),
        );
        decoded += batch.messages.length;
        if (decoded >= events) finish();
      },
    });
    await done;
    await consumer.disconnect();
  });
}
