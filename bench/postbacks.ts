import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { uuidV7 } from '../platform/ids/uuid-v7.js';
import { appendEvents, newEvent } from '../commands/append.js';
import { postbackReceivedEvent } from '../commands/postbacks/receive.js';
import { loadConfig } from '../platform/config/config.js';
import type { AppendedEvent } from '../platform/events/event-log.js';
import { registryCodec } from '../platform/events/registry-codec.js';
import { loadSchemaCatalog } from '../platform/events/schema-catalog.js';
import { openRuntime, type Runtime } from '../platform/runtime.js';
import { EventType } from '../schemas/generated/events.js';
import { partitionsOf } from '../schemas/topics.js';
import { startProjectors } from '../services/projector/projectors.js';
import { PROTOCOL, postbackWorld } from '../test/support/postback-world.js';
import { offerServed } from '../test/support/serves.js';
import { freePort, resolveStack, type StackEndpoints } from '../test/support/stack.js';
import { cpuSplit } from './cpu-split.js';
import { openLoop } from './open-loop.js';
import { PROJECTOR_MAIN, serveWithStaticAnswer, spawnService, startApi, startBenchServer, stopService } from './server.js';
import { benchDatabase, rawKafkaProducer, type BenchRow } from './support.js';
import { postbackLogKey } from '../commands/postbacks/log-key.js';

/**
 * `npm run bench -- postbacks`: `POST /v1/postback/{partner_id}` (current contract), every request
 * a distinct conversion (its own event_id) attributed by offer_instance_id to one of many served
 * cards of a CPA offer. On Kafka (acks=all), decided by the ledger projection in a projector
 * process of its own (the headline: production runs PROJECTORS=separate) and in the API process
 * (inline); next to a raw idempotent kafkajs producer appending equivalent PostbackReceived events
 * one per send at the same concurrency, and the ceiling of HTTP alone (httpCeiling). Also the
 * embedded default (event log and ledger in PGlite).
 * For each: saturation (closed loop), then a fixed open-loop rate of TARGET_RATE a second (or 90%
 * of saturation when that is lower), then a check that the ledger holds exactly one conversion
 * per acknowledged postback. The saturation rows also say what one postback cost each process in
 * CPU (cpu-split.ts: the API, the projector, Postgres, Kafka, the registry) and how many cores the
 * service would need at TARGET_RATE for that cost: the machine's limit, which rates alone hide.
 * Settings: BENCH_SECONDS, BENCH_FIXED_SECONDS, BENCH_CONNECTIONS,
 * BENCH_EMBEDDED_CONNECTIONS, BENCH_SERVES, BENCH_RATE.
 */
const SATURATION_S = Number(process.env.BENCH_SECONDS ?? 8);
const FIXED_S = Number(process.env.BENCH_FIXED_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
/** The embedded default decides a few hundred a second at most: 64 connections would queue past the decision timeout. */
const EMBEDDED_CONNECTIONS = Number(process.env.BENCH_EMBEDDED_CONNECTIONS ?? 16);
const SERVES = Number(process.env.BENCH_SERVES ?? 20_000);
const TARGET_RATE = Number(process.env.BENCH_RATE ?? 5_000);
/** An open loop at 100% of saturation queues without bound: its p99 would be the run's length. */
const BELOW_SATURATION = 0.9;
const RAW_S = 5;
const SERVE_BATCH = 2_000;
const KEY_HASH_SECRET = 'bench-key-hash-secret-0123456789abcdef';
const STATIC_ROLE = 'postbacks-static';

const progress = (line: string) => process.stderr.write(`bench postbacks: ${line}\n`);

interface World {
  partner: string;
  offer: string;
  application: string;
  instances: string[];
}

/**
 * The partner (allowlist 127.0.0.1 and ::1, `purchase` → `install`), its CPA offer and an
 * application, through the admin commands (the projectors must run); then SERVES cards of that
 * offer appended as the seed does, and applied.
 */
async function buildWorld(runtime: Runtime): Promise<World> {
  const world = await postbackWorld(runtime);
  const instances: string[] = [];
  const appended: AppendedEvent[] = [];
  for (let done = 0; done < SERVES; done += SERVE_BATCH) {
    const serves = Array.from({ length: Math.min(SERVE_BATCH, SERVES - done) }, () =>
      offerServed(runtime.config.linkBase, { offer_id: world.cpaOffer, application_id: world.application, link_code: null }),
    );
    appended.push(...(await appendEvents(runtime, 'serves', serves.map((serve) => newEvent(EventType.OfferServed, serve.offer_instance_id, serve)))));
    instances.push(...serves.map((serve) => serve.offer_instance_id));
  }
  if (!(await (await runtime.watermarks()).awaitApplied('serves', appended, 120_000))) throw new Error('the serves projection did not apply the served cards');
  return { partner: world.partner, offer: world.cpaOffer, application: world.application, instances };
}

/** Bodies of distinct conversions: a fresh event_id each, cycling over the served cards. */
function postbackBodies(world: World, tag: string): () => string {
  let next = 0;
  return () => {
    const n = next++;
    return JSON.stringify({ event_name: 'purchase', event_id: `${tag}-${n}`, offer_instance_id: world.instances[n % world.instances.length] });
  };
}

type Sent = { body: string };

/**
 * Closed loop: `connections` connections posting back to back, `amount` requests in all (all
 * answered). The bodies answered 503 postback_intake_unavailable (logged, not decided in time)
 * are kept for the partner-style retry that gets their decision.
 */
async function saturate(url: string, body: () => string, connections: number, amount: number) {
  let ok = 0;
  let lastAnswerAt = 0;
  const deferred: string[] = [];
  const start = performance.now();
  const result = await autocannon({
    url,
    connections,
    amount,
    requests: [
      {
        method: 'POST',
        headers: PROTOCOL,
        // One request in flight a connection: the connection's context holds the body it answers.
        setupRequest: (request, context) => ({ ...request, body: ((context as Sent).body = body()) }),
        onResponse: (status, answer, context) => {
          lastAnswerAt = performance.now();
          if (status >= 200 && status < 300) ok += 1;
          else if (status === 503 && answer.includes('postback_intake_unavailable')) deferred.push((context as Sent).body);
        },
      },
    ],
  });
  return {
    ok, deferred, perSecond: Math.round((ok * 1000) / Math.max(1, lastAnswerAt - start)),
    p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors,
  };
}

/**
 * A postback, retried with the same identity while it is deferred or the projectors are still
 * starting (503), as a partner would: resolves once it has a 2xx.
 */
async function postUntilDecided(url: string, body: string) {
  for (let attempt = 1; attempt <= 60; attempt += 1) {
    const response = await fetch(url, { method: 'POST', headers: PROTOCOL, body });
    if (response.ok) return;
    if (response.status !== 503) throw new Error(`postback answered ${response.status}: ${await response.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('the ledger did not decide a postback within 30 s of retries');
}

/** Probe, warm-up, saturation and the fixed rate against one running API; rows and the 2xx count. */
async function measure(
  base: string,
  world: World,
  connections: number,
  label: { backend: string; decisions: string },
  processes: { api?: ChildProcess; projector?: ChildProcess },
  baseline?: { name: string; perSecond: number },
) {
  const url = `${base}/v1/postback/${world.partner}`;
  const body = postbackBodies(world, `${label.backend}-${label.decisions}-${randomBytes(3).toString('hex')}`);
  const step = (line: string) => progress(`${label.backend} / ${label.decisions}: ${line}`);
  await postUntilDecided(url, body());
  step('warm-up');
  const warm = await saturate(url, body, connections, Math.max(connections * 10, 1_000));
  step(`saturation, ${connections} connections, about ${SATURATION_S} s (warm-up ran ${warm.perSecond}/s)`);
  const cpu = cpuSplit({ api: processes.api?.pid, projector: processes.projector?.pid });
  const saturated = await saturate(url, body, connections, Math.max(connections * 10, Math.round(warm.perSecond * SATURATION_S)));
  const cpuPerPostback = cpu(saturated.ok);
  const rate = Math.max(1, Math.min(TARGET_RATE, Math.floor(saturated.perSecond * BELOW_SATURATION)));
  step(`open loop at ${rate}/s for ${FIXED_S} s`);
  const deferredInLoop: string[] = [];
  const fixed = await openLoop({
    url, rate, durationS: FIXED_S, headers: PROTOCOL, body,
    onAnswer: (status, answer, sent) => status === 503 && answer.includes('postback_intake_unavailable') && deferredInLoop.push(sent),
  });
  // Deferred postbacks are logged and will be decided: their retry gets the decision, as a partner's would.
  const deferred = [...warm.deferred, ...saturated.deferred, ...deferredInLoop];
  if (deferred.length > 0) step(`retrying ${deferred.length} deferred postbacks`);
  for (const sent of deferred) await postUntilDecided(url, sent);
  const rows: BenchRow[] = [
    {
      ...label,
      measure: `saturation (${connections} connections)`,
      per_second: saturated.perSecond,
      p50_ms: saturated.p50,
      p99_ms: saturated.p99,
      non_2xx: saturated.non2xx,
      errors: saturated.errors,
      ...(baseline ? { baseline: baseline.name, baseline_per_second: baseline.perSecond } : {}),
      target: baseline ? '≥ 5,000/s' : '',
      // What one postback costs the machine, process by process: the rate its cores allow.
      ...cpuPerPostback,
      service_cores_at_target_rate: Number(((cpuPerPostback.cpu_us_service! * TARGET_RATE) / 1e6).toFixed(1)),
    },
    {
      ...label,
      measure: rate === TARGET_RATE ? `open loop at ${rate}/s` : `open loop at ${rate}/s (90% of saturation; ${TARGET_RATE}/s not reached)`,
      per_second: fixed.perSecond,
      p50_ms: fixed.p50,
      p99_ms: fixed.p99,
      non_2xx: fixed.non2xx,
      errors: fixed.errors,
      target: baseline ? 'p99 ≤ 50 ms at 5,000/s' : '',
    },
  ];
  return {
    rows,
    // The probe, every 2xx, and every deferred postback once its retry was answered.
    acknowledged: 1 + warm.ok + saturated.ok + fixed.ok + deferred.length,
    non2xx: warm.non2xx + saturated.non2xx + fixed.non2xx,
    errors: warm.errors + saturated.errors + fixed.errors,
  };
}

/** The check row: every acknowledged postback is one conversion of the bench partner, no more. */
async function ledgerCheck(runtime: Runtime, world: World, backend: string, load: { acknowledged: number; non2xx: number; errors: number }): Promise<BenchRow> {
  const { rows } = await runtime.db.query<{ conversions: string; decisions: string }>(
    `SELECT (SELECT count(*) FROM conversions WHERE partner_id = $1) AS conversions, (SELECT count(*) FROM postback_log WHERE partner_id = $1) AS decisions`,
    [world.partner],
  );
  const conversions = Number(rows[0]!.conversions);
  return {
    backend,
    measure: 'ledger: conversions of the bench partner = acknowledged postbacks',
    non_2xx: load.non2xx,
    errors: load.errors,
    acknowledged: load.acknowledged,
    conversions,
    decisions_logged: Number(rows[0]!.decisions),
    check: conversions === load.acknowledged ? 'ok' : 'MISMATCH',
  };
}

/**
 * The baseline: one idempotent producer configured as the service's (acks=all, one request in
 * flight), CONNECTIONS callers each sending one encoded PostbackReceived per send for RAW_S seconds.
 */
async function rawProducer(stack: StackEndpoints, prefix: string, world: World): Promise<number> {
  const topic = `${prefix}raw-postbacks`;
  const codec = registryCodec(stack.schemaRegistryUrl, loadSchemaCatalog());
  const messages = await Promise.all(
    Array.from({ length: 20_000 }, async (_, n) => {
      const instance = world.instances[n % world.instances.length]!;
      const event = postbackReceivedEvent(
        { partner_id: world.partner, source_ip: '127.0.0.1', channel: 'current', fields: { event_name: 'purchase', event_id: `raw-${n}`, offer_instance_id: instance }, correlation_id: uuidV7() },
        { matched_by: 'offer_instance_id', offer_id: world.offer, offer_instance_id: instance, svc_click_id: null, application_id: world.application, environment: 'live' },
        { goal_event: 'install', payout_amount: '12.50', payout_currency: 'USD' },
        new Date(),
      );
      return { key: postbackLogKey(event), value: await codec.encode(topic, EventType.PostbackReceived, { ...event }) };
    }),
  );
  const producer = await rawKafkaProducer(stack, topic, partitionsOf('postbacks'));
  try {
    await producer.send({ topic, acks: -1, messages: [messages[0]!] });
    let sent = 0;
    const start = performance.now();
    const until = start + RAW_S * 1000;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < until) await producer.send({ topic, acks: -1, messages: [messages[sent++ % messages.length]!] });
      }),
    );
    return Math.round((sent * 1000) / (performance.now() - start));
  } finally {
    await producer.disconnect();
  }
}

/**
 * The ceiling of HTTP alone on this machine: the API's app (every hook it runs) in a process of
 * its own, with a route that takes the same postback requests (headers, JSON bodies) from the same
 * client at the same concurrency and sends back an accepted answer's bytes, appending and deciding
 * nothing. No postback route can answer faster than this one.
 */
async function httpCeiling(env: Record<string, string>, world: World): Promise<number> {
  const server = await startBenchServer(import.meta.url, STATIC_ROLE, env);
  try {
    const url = `${server.base}/bench/static-postback`;
    const answer = {
      code: 'SUCCESS', message: '', extra: {},
      data: { result: 'accepted', correlation_id: uuidV7(), attribution: { matched_by: 'offer_instance_id', offer_id: world.offer, offer_instance_id: world.instances[0] }, ledger_position: { partition: 3, offset: '1187' } },
    };
    const stored = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) });
    if (!stored.ok) throw new Error(`the static route refused its answer: ${stored.status}`);
    const body = postbackBodies(world, `static-${randomBytes(3).toString('hex')}`);
    const warm = await saturate(url, body, CONNECTIONS, Math.max(CONNECTIONS * 10, 1_000));
    return (await saturate(url, body, CONNECTIONS, Math.max(CONNECTIONS * 10, Math.round(warm.perSecond * SATURATION_S)))).perSecond;
  } finally {
    await stopService(server.child);
  }
}

async function kafkaRows(stack: StackEndpoints): Promise<BenchRow[]> {
  const database = await benchDatabase(stack);
  const env = {
    DATABASE_URL: database.url, KEY_HASH_SECRET, KAFKA_BROKERS: stack.kafkaBrokers.join(','), SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
    REDIS_URL: stack.redisUrl, TOPIC_PREFIX: `bench${randomBytes(3).toString('hex')}.`, LOG_LEVEL: 'warn',
  };
  const runtime = await openRuntime(loadConfig(env));
  let projector: ChildProcess | undefined;
  let api: ChildProcess | undefined;
  try {
    progress('kafka: starting a projector process');
    projector = spawnService(PROJECTOR_MAIN, env);
    progress(`kafka: partner, CPA offer and ${SERVES} served cards through the commands`);
    const world = await buildWorld(runtime);
    progress(`kafka: raw producer baseline, ${CONNECTIONS} callers, ${RAW_S} s`);
    const raw = { name: `raw kafkajs producer, PostbackReceived one per send, ${CONNECTIONS} in flight`, perSecond: await rawProducer(stack, env.TOPIC_PREFIX, world) };
    progress(`kafka: HTTP ceiling, a static answer of the same app, ${CONNECTIONS} connections, about ${SATURATION_S} s`);
    const ceiling = await httpCeiling(env, world);

    progress('kafka: starting the API (PROJECTORS=separate)');
    let base = `http://127.0.0.1:${await freePort()}`;
    api = await startApi({ ...env, PROJECTORS: 'separate', PORT: new URL(base).port, HOST: '127.0.0.1' }, base);
    const separate = await measure(base, world, CONNECTIONS, { backend: 'kafka', decisions: 'projector process (headline)' }, { api, projector }, raw);
    await stopService(api);
    await stopService(projector);

    progress('kafka: starting the API (PROJECTORS=inline)');
    base = `http://127.0.0.1:${await freePort()}`;
    api = await startApi({ ...env, PROJECTORS: 'inline', PORT: new URL(base).port, HOST: '127.0.0.1' }, base);
    const inline = await measure(base, world, CONNECTIONS, { backend: 'kafka', decisions: 'inline in the API' }, { api }, raw);
    await stopService(api);

    const check = await ledgerCheck(runtime, world, 'kafka', {
      acknowledged: separate.acknowledged + inline.acknowledged, non2xx: separate.non2xx + inline.non2xx, errors: separate.errors + inline.errors,
    });
    const ceilingRow: BenchRow = {
      backend: 'kafka', decisions: 'none (HTTP only)', measure: `saturation (${CONNECTIONS} connections): the API's app answering a static accepted answer to the same requests`,
      per_second: ceiling, target: '',
    };
    return [...separate.rows, ...inline.rows, ceilingRow, check];
  } finally {
    await stopService(api);
    await stopService(projector);
    await runtime.close();
    await database.drop();
  }
}

/** The embedded default: the API owns DATA_DIR, so the world is built first and counted after. */
async function embeddedRows(): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'offer-ledger-bench-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  let api: ChildProcess | undefined;
  try {
    progress(`embedded: partner, CPA offer and ${SERVES} served cards through the commands`);
    let runtime = await openRuntime(loadConfig(env));
    const projectors = await startProjectors(runtime);
    const world = await buildWorld(runtime).finally(async () => {
      await projectors.stop();
      await runtime.close();
    });
    progress('embedded: starting the API');
    const base = `http://127.0.0.1:${await freePort()}`;
    api = await startApi({ ...env, PORT: new URL(base).port, HOST: '127.0.0.1' }, base);
    const measured = await measure(base, world, EMBEDDED_CONNECTIONS, { backend: 'embedded', decisions: 'inline in the API' }, { api });
    await stopService(api);
    runtime = await openRuntime(loadConfig(env));
    try {
      return [...measured.rows, await ledgerCheck(runtime, world, 'embedded', measured)];
    } finally {
      await runtime.close();
    }
  } finally {
    await stopService(api);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchRow[]> {
  const started = performance.now();
  // Everything shares the machine's cores: its load says how much else was running.
  const loadAtStart = loadavg()[0]!.toFixed(1);
  const stack = await resolveStack((line) => process.stderr.write(`[stack] ${line}\n`));
  const rows = [...(await kafkaRows(stack)), ...(await embeddedRows())];
  rows.push({ measure: `machine: ${cpus().length} cores, 1-minute load average at start / end`, load: `${loadAtStart} / ${loadavg()[0]!.toFixed(1)}` });
  progress(`done in ${Math.round((performance.now() - started) / 1000)} s`);
  return rows;
}

if (process.env.BENCH_ROLE === STATIC_ROLE) await serveWithStaticAnswer('/bench/static-postback', 'POST');
