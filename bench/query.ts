import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { servedEvents } from '../commands/serves/serve.js';
import { loadConfig } from '../platform/config/config.js';
import { registryCodec } from '../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../platform/events/schema-catalog.js';
import { openRuntime, type Runtime } from '../platform/runtime.js';
import { EventType } from '../schemas/generated/events.js';
import { partitionsOf } from '../schemas/topics.js';
import { details, servingAdmin } from '../test/support/serving-fixtures.js';
import { freePort, resolveStack, type StackEndpoints } from '../test/support/stack.js';
import { openLoop } from './open-loop.js';
import { histogramBuckets, routeDurations, serviceP99Ms, startApi, stopService } from './server.js';
import { benchDatabase, median, rate, rawKafkaProducer, type BenchRow } from './support.js';

/**
 * Query on Kafka: served cards per second through `POST /v1/offers/query` (an API process with
 * inline projectors; each answer goes out once its serves are logged) next to a raw idempotent
 * kafkajs producer appending the same OfferServed events (acks=all, three per send, as many sends
 * in flight as Query has connections), alternating over ROUNDS. Then Query's latency and the
 * server's read_after_write_seconds p99 (serves), over the saturated rounds and in an open loop
 * at half of Query's saturated rate. Both sides are measured warm (a service runs warm): Query
 * after WARMUP_S of the same load, the producer after WARM_SENDS sends.
 */
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const CARDS = 3;
/** Both sides run warm: Query under the measured load for this long first, the raw producer this many sends. */
const WARMUP_S = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const WARM_SENDS = 1_000;
/** Alternating runs of Query and the raw producer. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const KEY_HASH_SECRET = 'bench-key-hash-secret-0123456789abcdef';

/**
 * The baseline: a raw idempotent kafkajs producer appending the same OfferServed events, connected
 * and warmed (WARM_SENDS sends) once; `measure(sends)` appends that many more and returns cards/s.
 */
async function openRawProducer(stack: StackEndpoints, prefix: string) {
  const topic = `${prefix}raw-serves`;
  const codec = registryCodec(stack.schemaRegistryUrl, loadSchemaCatalog());
  const request = {
    application_id: '01a20000-0000-7000-8000-000000000001', placement_id: null, environment: 'live' as const, anonymous: false, location_id: null,
    offers: Array.from({ length: CARDS }, (_, i) => ({ offer_id: `01a20000-0000-7000-8000-00000000000${i}`, destination_url: 'https://bench.example/' })),
  };
  // Encoded before the clock starts: the producer is measured, not the codec.
  const encode = (sends: number) =>
    Promise.all(
      Array.from({ length: sends }, async () => {
        const events = servedEvents(request, { now: new Date(), linkBase: 'http://127.0.0.1:8080/l', codes: ['AAAAAAAA', 'BBBBBBBB', 'CCCCCCCC'] });
        return Promise.all(events.map(async (event) => ({ key: event.offer_instance_id, value: await codec.encode(topic, EventType.OfferServed, { ...event }) })));
      }),
    );
  const producer = await rawKafkaProducer(stack, topic, partitionsOf('serves'));
  const sendAll = async (list: Awaited<ReturnType<typeof encode>>) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < list.length) await producer.send({ topic, acks: -1, messages: list[next++]! });
      }),
    );
  };
  // Warmed like the service is: the first sends run through cold code and fresh connections.
  await sendAll(await encode(WARM_SENDS));
  return {
    async measure(sends: number): Promise<number> {
      const batches = await encode(sends);
      const started = performance.now();
      await sendAll(batches);
      return rate(sends * CARDS, performance.now() - started);
    },
    close: () => producer.disconnect(),
  };
}

export async function queryBench(): Promise<BenchRow[]> {
  const stack = await resolveStack((line) => process.stderr.write(`[stack] ${line}\n`));
  const database = await benchDatabase(stack);
  const prefix = `bench${randomBytes(3).toString('hex')}.`;
  const env = {
    DATABASE_URL: database.url, KEY_HASH_SECRET, KAFKA_BROKERS: stack.kafkaBrokers.join(','), SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
    REDIS_URL: stack.redisUrl, TOPIC_PREFIX: prefix, LOG_LEVEL: 'silent', PROJECTORS: 'inline',
  };
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let runtime: Runtime | undefined = await openRuntime(loadConfig(env));
  let api: ChildProcess | undefined;
  try {
    api = await startApi({ ...env, PORT: String(port), HOST: '127.0.0.1' }, base);
    // Accounts and offers through the admin commands; the API's projectors apply them.
    const admin = servingAdmin(runtime);
    const application = await admin.application(await admin.developer());
    const key = (await admin.key(application)).key;
    // Without a placement a Query is anonymous (the default placement's application, none designated here).
    const placement_id = await admin.placement(application);
    const partner_id = await admin.partner();
    for (let i = 0; i < 50; i += 1) {
      await admin.offer({ partner_id, details: details(`category-${i % 5}`, { amount: `${1 + (i % 17)}.00` }), destination_url: `https://bench.example/${i}` });
    }

    // The admin side is done: this process only generates load from here. Its runtime would go on
    // hearing every applied position the API's projector announces (hundreds a second), work
    // on the load generator's core that showed in the latencies measured.
    await runtime.close();
    runtime = undefined;

    const body = JSON.stringify({ placement_id, limit: CARDS, context: { categories: ['category-1'] } });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    await autocannon({ url: `${base}/v1/offers/query`, connections: CONNECTIONS, duration: WARMUP_S, method: 'POST', headers, body });
    // Query and the raw producer alternate over ROUNDS and their medians are compared, so a noisy
    // moment of the broker or the machine lands on both sides.
    const raw = await openRawProducer(stack, prefix);
    const runs: { served: number; raw: number; result: autocannon.Result }[] = [];
    const appliedAfter = () => histogramBuckets(base, 'read_after_write_seconds', 'projection="serves"');
    const beforeSaturated = await appliedAfter();
    let afterSaturated = beforeSaturated;
    try {
      for (let round = 1; round <= ROUNDS; round += 1) {
        process.stderr.write(`bench query: round ${round} of ${ROUNDS} (Query, then the raw producer)\n`);
        const result = await autocannon({ url: `${base}/v1/offers/query`, connections: CONNECTIONS, duration: DURATION_S, method: 'POST', headers, body });
        const baseline = await raw.measure(Math.max(500, result['2xx']));
        runs.push({ served: rate(result['2xx'] * CARDS, DURATION_S * 1000), raw: baseline, result });
      }
      afterSaturated = await appliedAfter();
    } finally {
      await raw.close();
    }
    const query = median(runs, (run) => run.served);
    // Latency is read at half of saturation too, as the lookup's is (bench/instances.ts): at
    // saturation every queue on the machine is full, and the figure is mostly their length.
    const halfRate = Math.max(1, Math.floor(query.result.requests.average / 2));
    process.stderr.write(`bench query: open loop at half of saturation (${halfRate} requests/s)\n`);
    const [beforeHalf, answeredBeforeHalf] = [await appliedAfter(), await routeDurations(base, '/v1/offers/query')];
    const half = await openLoop({ url: `${base}/v1/offers/query`, rate: halfRate, durationS: DURATION_S, warmupS: 1, headers, body: () => body });
    const [afterHalf, answeredAfterHalf] = [await appliedAfter(), await routeDurations(base, '/v1/offers/query')];
    return [
      {
        measure: `Query serves/s on Kafka (${CARDS} cards a request, ${CONNECTIONS} connections, median of ${ROUNDS})`, per_second: query.served,
        baseline: `raw kafkajs producer, same events, ${CARDS} a send (median of ${ROUNDS})`, baseline_per_second: median(runs, (run) => run.raw).raw,
        rounds: runs.map((run) => `${run.served}/${run.raw}`).join(' '), target: 'ratio ≥ 0.5',
      },
      { measure: 'Query latency p50 / p99 (ms), saturated, median run', figure: `${query.result.latency.p50} / ${query.result.latency.p99}`, non2xx: runs.reduce((sum, run) => sum + run.result.non2xx, 0), errors: runs.reduce((sum, run) => sum + run.result.errors, 0) },
      { measure: `Query latency p50 / p99 (ms), open loop at half of saturation (${halfRate} requests/s)`, figure: `${half.p50} / ${half.p99}`, service_p99_ms_within: serviceP99Ms(answeredBeforeHalf, answeredAfterHalf), non2xx: half.non2xx, errors: half.errors },
      { measure: 'read_after_write_seconds p99 (bucket bound, ms), saturated rounds', figure: serviceP99Ms(beforeSaturated, afterSaturated), target: '≤ 100 ms' },
      { measure: 'read_after_write_seconds p99 (bucket bound, ms), at half of saturation', figure: serviceP99Ms(beforeHalf, afterHalf), target: '≤ 100 ms' },
    ];
  } finally {
    await stopService(api);
    await runtime?.close();
    await database.drop();
  }
}
