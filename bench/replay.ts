import { cpus, loadavg } from 'node:os';
import { ledgerProjection } from '../projections/ledger/projection.js';
import type { TopicPartitionOffset } from '../platform/events/event-log.js';
import { dropSchemas } from '../platform/projection/replay-schema.js';
import { replay, type ReplayReport } from '../platform/projection/replay.js';
import type { Projection } from '../platform/projection/projection.js';
import type { Runtime } from '../platform/runtime.js';
import { TOPICS, type TopicName } from '../schemas/topics.js';
import { seedAccounts } from '../services/admin/seed/accounts.js';
import { seedCatalog } from '../services/admin/seed/catalog.js';
import { seededRandom, seedSize, type SeedContext } from '../services/admin/seed/seed-context.js';
import { seedServing } from '../services/admin/seed/serving.js';
import { projections } from '../services/projector/projectors.js';
import { replayProgressBar } from '../services/replay/progress.js';
import { resolveStack, type StackEndpoints } from '../test/support/stack.js';
import { benchDatabase, kafkaBenchRuntime, printTable, rate, rawDecode, writeResults, type BenchRow } from './support.js';

/**
 * `npm run bench -- replay`: the replay of every read model from BENCH_REPLAY_EVENTS (or a few
 * more) seeded events on Kafka (accounts and catalog, then serves, clicks and postbacks, built by
 * the seed's own functions), against a raw kafkajs consumer of its own group that reads the same
 * topics from the beginning and only decodes (Avro through the registry), in the same run. Then
 * the ledger alone (the postbacks topic) against the raw consumer of that topic.
 *
 * The replay runs as `npm run replay -- --until <the log's end>` does: into a fresh schema, with
 * no live read models to catch up with or compare against (no projector runs here), so it
 * measures the rebuild alone. Its time is the replay's own (joining the consumer groups
 * included, the checksums of the rebuilt tables not); the raw consumer's includes joining its
 * group too. Each rate counts events in the log (the offers topic, read by two read models, once).
 */
const EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 1_000_000);
/** Serves per seeding round; each round is followed by a count of the log. */
const SERVE_ROUND = 100_000;
/** Offers (and accounts and partners in proportion) the served cards are drawn from. */
const OFFERS = 500;
const TOPIC_NAMES: TopicName[] = TOPICS.map((design) => design.topic);

const progress = (line: string) => process.stderr.write(`bench replay: ${line}\n`);

async function logEnds(runtime: Runtime, topics: TopicName[]): Promise<TopicPartitionOffset[]> {
  return (await Promise.all(topics.map((topic) => runtime.eventLog.endOffsets(topic)))).flat();
}

const countOf = (ends: TopicPartitionOffset[]) => ends.reduce((sum, end) => sum + Number(end.offset), 0);

/** Seeds accounts and the catalog, then serving rounds until the log holds at least `target` events. */
async function seed(runtime: Runtime, target: number): Promise<void> {
  const context: SeedContext = {
    runtime,
    size: seedSize(OFFERS),
    random: seededRandom(1),
    now: () => new Date('2026-06-01T12:00:00Z'),
    progress: () => ({ tick() {}, done() {} }),
    shared: new Map(),
  };
  await seedAccounts(context);
  await seedCatalog(context);
  const before = countOf(await logEnds(runtime, TOPIC_NAMES));
  let logged = before;
  let served = 0;
  progress(`seeded accounts and catalog: ${before} events`);
  const started = performance.now();
  while (logged < target) {
    // Events per serve so far (one serve, its clicks and their postbacks); a guess before the first round.
    const perServe = served > 0 ? (logged - before) / served : 1.3;
    const serves = Math.max(2_000, Math.min(SERVE_ROUND, Math.ceil((target - logged) / perServe)));
    await seedServing(context, serves);
    served += serves;
    logged = countOf(await logEnds(runtime, TOPIC_NAMES));
    progress(`seeded ${logged} of ${target} events (${served} serves, ${rate(logged, performance.now() - started)} events/s)`);
  }
}

/** One replay to the log's end into a fresh schema; its report, the schemas it left dropped. */
async function replayToEnd(runtime: Runtime, label: string, only: Projection[], topics: TopicName[]): Promise<ReplayReport> {
  progress(`replay of ${label}`);
  const bar = replayProgressBar();
  try {
    const report = await replay(runtime.db, runtime.eventLog, {
      projections: only,
      explicit: only.length < projections.length,
      pointInTime: { until: await logEnds(runtime, topics) },
      onProgress: (update) => bar.update(update),
    });
    await dropSchemas(runtime.db, report.kept);
    return report;
  } finally {
    bar.stop();
  }
}

/** Milliseconds of the raw consumer over `topics`: the median of three (one slow run would flatter every ratio). */
async function rawBaseline(stack: StackEndpoints, prefix: string, topics: TopicName[], events: number): Promise<number> {
  const runs: number[] = [];
  for (let run = 1; run <= 3; run += 1) {
    progress(`raw decode baseline (${topics.join(', ')}), run ${run} of 3`);
    runs.push(await rawDecode(stack, topics.map((topic) => `${prefix}${topic}`), events));
  }
  return runs.sort((a, b) => a - b)[1]!;
}

function replayRow(measure: string, events: number, report: ReplayReport, rawMs: number): BenchRow {
  return {
    backend: 'kafka',
    measure,
    events,
    applied: report.events,
    seconds: Number(report.seconds.toFixed(1)),
    per_second: rate(events, report.seconds * 1000),
    baseline: 'raw kafkajs consumer, same topics, decode only (median of 3)',
    baseline_per_second: rate(events, rawMs),
    target: '≥ 20,000/s and ≥ 0.5 of the raw consumer',
  };
}

export async function run(): Promise<BenchRow[]> {
  const started = performance.now();
  // The replay, Postgres, Kafka and the registry share the machine's cores: its load says how much else ran.
  const loadAtStart = loadavg()[0]!.toFixed(1);
  const stack = await resolveStack((line) => process.stderr.write(`[stack] ${line}\n`));
  const database = await benchDatabase(stack);
  const { runtime, prefix } = await kafkaBenchRuntime(stack, database.url);
  try {
    await seed(runtime, EVENTS);
    const logged = countOf(await logEnds(runtime, TOPIC_NAMES));
    const postbacks = countOf(await logEnds(runtime, ['postbacks']));

    const rawAll = await rawBaseline(stack, prefix, TOPIC_NAMES, logged);
    const all = await replayToEnd(runtime, `every read model (${logged} events)`, projections, TOPIC_NAMES);
    const rawLedger = await rawBaseline(stack, prefix, ['postbacks'], postbacks);
    const ledger = await replayToEnd(runtime, `the ledger (${postbacks} postbacks)`, [ledgerProjection], ['postbacks']);

    const rows = [
      replayRow('replay, every read model, fresh schema to the log end (no live comparison)', logged, all, rawAll),
      replayRow('replay, ledger alone (postbacks topic), fresh schema to the log end', postbacks, ledger, rawLedger),
      { measure: `machine: ${cpus().length} cores, 1-minute load average at start / end`, load: `${loadAtStart} / ${loadavg()[0]!.toFixed(1)}` },
    ];
    progress(`done in ${Math.round((performance.now() - started) / 1000)} s`);
    return rows;
  } finally {
    await runtime.close();
    await database.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await run();
  printTable('replay', rows);
  writeResults('replay', rows);
}
