import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { adminCommands } from '../commands/index.js';
import { runCommand } from '../commands/run.js';
import { loadConfig } from '../platform/config/config.js';
import { awaitCaughtUp } from '../platform/projection/catch-up.js';
import { openRuntime, type Runtime } from '../platform/runtime.js';
import { projections, startProjectors } from '../services/projector/projectors.js';
import { DETAILS } from '../test/support/instance-world.js';
import { resolveStack } from '../test/support/stack.js';
import { serveBareAnswer } from './bare-http-server.js';
import { openLoop } from './open-loop.js';
import { halfRate, medianRun, processCpuSeconds, routeDurations, saturationColumns, serviceMemory, serviceP99Ms, startBenchServer, serveWithStaticAnswer, summarize, type LoadRun, type ServiceMemory } from './server.js';
import { benchDatabase, median, printTable, writeResults, type BenchRow } from './support.js';

/**
 * `POST /v1/offers/instances` with 100 ids per call over SERVED (default 1,000,000) served
 * instances, next to a static envelope of the same size answered by the same process to the same
 * request bodies. Accounts and offers are written through the admin commands; the served
 * instances are written straight into their read model (generate_series), since appending a
 * million events would measure the log, not the lookup. Every call asks for 100 different ids
 * (90 of the caller's cards, 10 of another application's) out of BODIES bodies. A first pass
 * over every body is reported on its own (each card read from Postgres once); the measured runs
 * then ask for cards seen before, answered from the process as app servers that look their cards
 * up again are; keys, placements and offers come from the warm caches, as in production.
 *
 * The static route and the lookup alternate over ROUNDS saturated runs and their medians are
 * compared, so a noisy moment on this shared machine lands on both sides. Latency at half of
 * saturation is measured open-loop (open-loop.ts: evenly spaced requests, each timed from its
 * scheduled start). autocannon's overallRate is reported beside it: it sends every connection's
 * quota at the same instant, so its figure is the wait behind a burst of CONNECTIONS requests.
 * The static route is also run at the lookup's half rate: the latency this machine gives the
 * same bytes at the same load, with no lookup; and so is a bare node:http server answering those
 * bytes from a process of its own (bare-http-server.ts), the floor of any service here. Beside each open loop's p99 stands the service's
 * own (its request duration histogram, as the bucket bound it is within), which leaves out the
 * time requests wait in queues and sockets for a process the machine has not scheduled. Each
 * saturated run also reads the service's CPU time per answer (service_cpu_us_per_request, and
 * cpu_ratio: the static route's over the lookup's), which the machine's other load disturbs far
 * less than the rates. A kept
 * card's memory is reported after the first pass (the cache's bytes, and the process's resident
 * memory before and after).
 */
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SERVED = Number(process.env.BENCH_SERVED ?? 1_000_000);
const BODIES = 2_000;
/** Alternating saturated runs of the static route and the lookup. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const OFFERS = 100;
const KEY_HASH_SECRET = 'bench-key-hash-secret-0123456789abcdef';

async function command(runtime: Runtime, name: string, input: Record<string, unknown>) {
  const found = adminCommands.find((candidate) => candidate.name === name)!;
  const result = await runCommand(found, input, { runtime, now: () => new Date() });
  await awaitCaughtUp(runtime, projections, 60_000);
  return result as Record<string, any>;
}

/** Accounts, offers and SERVED served instances; returns the caller's key and the request bodies. */
export async function seed(databaseUrl: string) {
  const runtime = await openRuntime(loadConfig({ DATABASE_URL: databaseUrl, KEY_HASH_SECRET, LOG_LEVEL: 'silent' }));
  const projectors = await startProjectors(runtime);
  try {
    const { partner_id } = await command(runtime, 'partner:configure', { name: 'Bench partner' });
    const { developer_id } = await command(runtime, 'developer:register', { name: 'Bench', email: 'bench@instances.test' });
    const { application_id } = await command(runtime, 'application:register', { developer_id, name: 'bench' });
    const other = (await command(runtime, 'application:register', { developer_id, name: 'other' })).application_id as string;
    const { key } = await command(runtime, 'api-key:issue', { application_id });
    const { placement_id } = await command(runtime, 'placement:create', { application_id, name: 'feed' });
    const offers: string[] = [];
    for (let index = 0; index < OFFERS; index += 1) {
      const input = { partner_id, kind: 'local', status: 'active', details: DETAILS, destination_url: 'https://shop.example/p' };
      offers.push((await command(runtime, 'offer:upsert', input)).offer_id as string);
    }
    const started = performance.now();
    // Every tenth card belongs to another application; ids and codes are derived from the row number.
    await runtime.db.query(
      `INSERT INTO served_instances (offer_instance_id, application_id, placement_id, offer_id, served_at, environment, anonymous,
         location_id, link_code, link_url, destination_url)
       SELECT md5(i::text)::uuid::text, CASE WHEN i % 10 = 0 THEN $2 ELSE $1 END, $3, ($4::text[])[1 + i % ${OFFERS}],
              date_trunc('second', now()), 'live', false, NULL, 'c' || lpad(to_hex(i), 7, '0'),
              $5 || '/c' || lpad(to_hex(i), 7, '0'), 'https://shop.example/p'
       FROM generate_series(1, $6::int) AS i`,
      [application_id, other, placement_id, offers, runtime.config.linkBase, SERVED],
    );
    await runtime.db.query('ANALYZE served_instances');
    const insertSeconds = (performance.now() - started) / 1000;
    const { rows } = await runtime.db.query<{ body: string }>(
      `SELECT json_build_object('offer_instance_ids', json_agg(md5(i::text)::uuid::text))::text AS body
       FROM (SELECT b, 1 + ((b * 100 + n) * 7919) % $1 AS i FROM generate_series(0, $2 - 1) b, generate_series(0, 99) n) picks
       GROUP BY b ORDER BY b`,
      [SERVED, BODIES],
    );
    return { key: key as string, bodies: rows.map((row) => row.body), insertSeconds };
  } finally {
    await projectors.stop();
    await runtime.close();
  }
}

const MB = 1024 * 1024;

/**
 * What the kept cards cost: the cache's own bytes per card (its tables and text, room reserved
 * included), against the process's resident memory before any was kept (the baseline) and
 * after; the resident growth per card also counts the garbage the first pass left behind.
 */
function memoryRow(before: ServiceMemory, after: ServiceMemory): BenchRow {
  const cards = after.cachedCards - before.cachedCards;
  return {
    scenario: `memory: ${cards} served cards kept by the first pass`,
    kept_cards: after.cachedCards,
    cache_mb: Number((after.cacheBytes / MB).toFixed(1)),
    cache_bytes_per_card: cards > 0 ? Math.round((after.cacheBytes - before.cacheBytes) / cards) : 0,
    rss_before_mb: Math.round(before.residentBytes / MB),
    rss_after_mb: Math.round(after.residentBytes / MB),
    rss_growth_ratio: Number((after.residentBytes / before.residentBytes).toFixed(2)),
    rss_bytes_per_card: cards > 0 ? Math.round((after.residentBytes - before.residentBytes) / cards) : 0,
  };
}

/** One load run as cannon() reports it: the summary, and the service's CPU time per answer (0 unmeasured). */
type CannonRun = LoadRun & { cpuMicrosPerRequest: number };

async function cannon(base: string, path: string, key: string, bodies: string[], load: { overallRate?: number; amount?: number; servicePid?: number } = {}) {
  let next = 0;
  const started = performance.now();
  const cpuBefore = load.servicePid === undefined ? 0 : processCpuSeconds(load.servicePid);
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    ...(load.amount ? { amount: load.amount } : { duration: DURATION_S }),
    requests: [
      {
        method: 'POST',
        path,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length]! }),
      },
    ],
    ...(load.overallRate ? { overallRate: load.overallRate } : {}),
  });
  // A run of a fixed number of calls is rated over its own length (autocannon averages per whole second).
  const summary = { ...summarize(result), cpuMicrosPerRequest: load.servicePid === undefined ? 0 : Math.round(((processCpuSeconds(load.servicePid) - cpuBefore) * 1e6) / Math.max(1, result['2xx'])) };
  return load.amount ? { ...summary, perSecond: Math.round((result['2xx'] / (performance.now() - started)) * 1000) } : summary;
}

export async function instanceLookupBench(): Promise<BenchRow[]> {
  const stack = await resolveStack((line) => process.stderr.write(`[stack] ${line}\n`));
  const database = await benchDatabase(stack);
  let server: ChildProcess | undefined;
  let bare: { child: ChildProcess; base: string } | undefined;
  const rows: BenchRow[] = [];
  try {
    process.stderr.write(`bench instances: seeding ${SERVED} served instances\n`);
    const { key, bodies, insertSeconds } = await seed(database.url);
    rows.push({ scenario: `write ${SERVED} served instances into the read model`, seconds: Number(insertSeconds.toFixed(1)) });
    const started = await startBenchServer(import.meta.url, 'instances-server', { DATABASE_URL: database.url, KEY_HASH_SECRET, LOG_LEVEL: 'silent', PROJECTORS: 'separate' });
    server = started.child;
    const { base } = started;
    // Warm: the key, the placement and the offers are cached after the first calls. The static
    // route then answers the bytes of a real answer, so both serialize and send the same size.
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    let real = '';
    for (const body of bodies.slice(0, 5)) real = await (await fetch(`${base}/v1/offers/instances`, { method: 'POST', headers, body })).text();
    await fetch(`${base}/bench/static-instances`, { method: 'PUT', headers, body: real });
    const echoed = await (await fetch(`${base}/bench/static-instances`, { method: 'POST', headers, body: bodies[0] })).text();
    if (echoed.length !== real.length) throw new Error(`the static route sends ${echoed.length} bytes, not the ${real.length} of a real answer`);
    rows.push({ scenario: 'answer size (bytes) of 100 ids, 90 found', bytes: real.length });
    // The first lookup of a card reads Postgres, later ones are answered from the process
    // (served-card-cache.ts): one pass over every body first, then the steady state.
    const beforeFirstPass = await serviceMemory(base);
    process.stderr.write(`bench instances: first pass over ${BODIES * 100} ids\n`);
    const firstPass = await cannon(base, '/v1/offers/instances', key, bodies.slice(5), { amount: bodies.length - 5 });
    rows.push({ scenario: `instance lookup, first pass over ${(BODIES - 5) * 100} ids (cards read from Postgres)`, served_instances: SERVED, per_second: firstPass.perSecond, p50_ms: firstPass.p50, p99_ms: firstPass.p99, non_2xx: firstPass.non2xx, errors: firstPass.errors });
    const afterFirstPass = await serviceMemory(base);
    rows.push(memoryRow(beforeFirstPass, afterFirstPass));
    const measured = {
      static: { scenario: `static envelope of the same size (same bodies, median of ${ROUNDS})`, path: '/bench/static-instances', target: '', runs: [] as CannonRun[] },
      lookup: { scenario: `instance lookup, 100 ids per call, cards seen before (median of ${ROUNDS})`, path: '/v1/offers/instances', target: '>= 0.6, p99 <= 10 ms at half', runs: [] as CannonRun[] },
    };
    for (let round = 1; round <= ROUNDS; round += 1) {
      process.stderr.write(`bench instances: saturated, round ${round} of ${ROUNDS} (static, then the lookup)\n`);
      for (const side of [measured.static, measured.lookup]) side.runs.push(await cannon(base, side.path, key, bodies, { servicePid: server.pid }));
    }
    const staticPerSecond = medianRun(measured.static.runs).perSecond;
    /** The service's CPU time per answer, median of the saturated runs. */
    const cpuPerRequest = (side: typeof measured.static) => median(side.runs, (run) => run.cpuMicrosPerRequest).cpuMicrosPerRequest;
    const lookupHalfRate = halfRate(medianRun(measured.lookup.runs));
    /** An open loop at `rate`, with the service's own p99 of its answers (warm-up included) beside the load generator's. */
    const steady = async (path: string, rate: number) => {
      let next = 0;
      const before = await routeDurations(base, path);
      const run = await openLoop({ url: `${base}${path}`, rate, durationS: DURATION_S, warmupS: 1, headers, body: () => bodies[next++ % bodies.length]! });
      return { ...run, serviceP99: serviceP99Ms(before, await routeDurations(base, path)) };
    };
    for (const side of [measured.static, measured.lookup]) {
      process.stderr.write(`bench instances: ${side.scenario}, at half of saturation\n`);
      const saturated = medianRun(side.runs);
      const half = await steady(side.path, halfRate(saturated));
      const burst = await cannon(base, side.path, key, bodies, { overallRate: halfRate(saturated) });
      rows.push({
        scenario: side.scenario, served_instances: SERVED, ...saturationColumns(saturated, half),
        half_rate_service_p99_ms_within: half.serviceP99, autocannon_half_rate_p99_ms: burst.p99,
        service_cpu_us_per_request: cpuPerRequest(side), cpu_ratio: side === measured.static ? '' : Number((cpuPerRequest(measured.static) / cpuPerRequest(side)).toFixed(2)),
        baseline_per_second: side === measured.static ? 0 : staticPerSecond, target: side.target,
      });
    }
    // The floor of that latency on this machine: the static bytes at the lookup's half rate.
    process.stderr.write(`bench instances: static envelope at the lookup's half rate (${lookupHalfRate}/s)\n`);
    const floor = await steady(measured.static.path, lookupHalfRate);
    rows.push({ scenario: `static envelope at the lookup's half rate, ${lookupHalfRate}/s (latency floor)`, half_rate_p50_ms: floor.p50, half_rate_p99_ms: floor.p99, half_rate_service_p99_ms_within: floor.serviceP99, non_2xx: floor.non2xx, errors: floor.errors });
    // Below that floor: the same bytes from a bare node:http server in a process of its own.
    process.stderr.write(`bench instances: a bare node:http server, same bytes, at the lookup's half rate (${lookupHalfRate}/s)\n`);
    bare = await startBenchServer(import.meta.url, 'bare-http-server', {});
    await fetch(bare.base, { method: 'PUT', body: real });
    const bareRun = await openLoop({ url: `${bare.base}/`, rate: lookupHalfRate, durationS: DURATION_S, warmupS: 1, headers, body: () => bodies[0]! });
    rows.push({ scenario: `bare node:http server, same bytes, ${lookupHalfRate}/s (machine floor)`, half_rate_p50_ms: bareRun.p50, half_rate_p99_ms: bareRun.p99, non_2xx: bareRun.non2xx, errors: bareRun.errors });
  } finally {
    bare?.child.kill('SIGTERM');
    server?.kill('SIGTERM');
    await database.drop();
  }
  return rows;
}


if (process.env.BENCH_ROLE === 'instances-server') {
  await serveWithStaticAnswer('/bench/static-instances', 'POST');
} else if (process.env.BENCH_ROLE === 'bare-http-server') {
  serveBareAnswer();
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await instanceLookupBench();
  printTable('instances', rows);
  writeResults('instances', rows);
  process.exit(0);
}
