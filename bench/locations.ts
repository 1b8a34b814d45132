import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { loadConfig } from '../platform/config/config.js';
import { openRuntime } from '../platform/runtime.js';
import { loadFullCatalog } from '../reference/locations/full/loader.js';
import rateLimit from '@fastify/rate-limit';
import { fullReaderFor } from '../reference/locations/full/reader.js';
import { buildApp } from '../services/api/app.js';
import { locationRateLimit } from '../services/api/routes/locations/index.js';
import { generateGeoCatalog, writeGeoCatalog } from '../test/support/geo-catalog-generator.js';
import { resolveStack } from '../test/support/stack.js';
import { listenForBench, startBenchServer, summarize } from './server.js';
import { benchDatabase, printTable, writeResults, type BenchRow } from './support.js';

/**
 * Location routes under concurrent load, each next to a static envelope of similar size served by
 * the same process in the same run: the full-size synthetic catalog is generated and loaded into a
 * fresh Postgres database (load time reported), the real API runs in a child process (plus
 * bench-only static routes), and autocannon measures each scenario at saturation and again at half
 * of that rate (latency). The static routes that set `ratio` sit behind the location routes' own
 * rate limit (one Redis round trip per request, as in production) and run right before each
 * scenario; the same envelopes without it (measured once, at the end) give `ratio_unlimited`. Most scenarios cycle through a fixed set of requests, so they measure the
 * warm in-process caches; the "uncached" ones never repeat a request and measure the database path.
 * Cold (first-time, one at a time) latencies are reported for every scenario.
 *
 * Before the scenarios, the real API (`services/api/main.ts`, as `npm start` runs it, with
 * GEO_CATALOG_FILE set to the loaded file) is started with an empty GEO_INDEX_CACHE_DIR: it builds
 * the location indexes and saves their snapshots (cold); then restarted BENCH_RESTARTS times (5),
 * loading them (warm, median and range). Each reports the time from spawning the process to its
 * first answers on both catalogs, and its RSS then (idle). The scenarios run on a warm start too; the API's RSS is
 * sampled every 100 ms while they run (peak under load).
 */
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const KEY_HASH_SECRET = 'bench-key-hash-secret-0123456789abcdef';
const WARM_RESTARTS = Number(process.env.BENCH_RESTARTS ?? 5);

interface Scenario {
  name: string;
  paths: string[];
  baseline: 'static-search' | 'static-lookup' | null;
  target?: string;
  /** Every request asks for something not asked before (saturation and half-rate runs use disjoint halves). */
  uncached?: boolean;
}

function prefixes(names: string[], count: number): string[] {
  const set = new Set<string>();
  let i = 0;
  while (set.size < count && i < names.length * 4) {
    const name = names[(i * 7919) % names.length]!.toLowerCase().replace(/[^a-z]/g, '');
    const length = 1 + (i % 4);
    if (name.length >= length) set.add(name.slice(0, length));
    i++;
  }
  return [...set];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function cannon(base: string, paths: string[], overallRate?: number) {
  // One request template whose path rotates through the list, shared by all connections: a list
  // of templates makes every connection walk the whole list itself (so "uncached" paths were
  // asked 32 times), and under a rate limit autocannon then reports latencies of hundreds of ms
  // that the server never had (measured: the static route shows them too when given 2000 paths).
  let next = 0;
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: DURATION_S,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }) }],
    ...(overallRate ? { overallRate } : {}),
  });
  return summarize(result);
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** Resolves once every path exists (files written whole, by rename), polling. */
async function whenFilesExist(paths: string[], timeoutMs = 120_000) {
  const until = Date.now() + timeoutMs;
  while (!paths.every((path) => existsSync(path))) {
    if (Date.now() > until) throw new Error(`not written within ${timeoutMs} ms: ${paths.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts the real API as `npm start` does and measures the restart: milliseconds from spawning
 * the process to its first answers on both catalogs, and its RSS then (from /metrics).
 */
async function restartApi(env: Record<string, string>) {
  const spawned = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../services/api/main.ts', import.meta.url))], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  createInterface({ input: child.stderr! }).on('line', (line) => process.stderr.write(`[api] ${line}\n`));
  const base = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the API exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /Server listening at (http:\/\/[^"\s]+)/.exec(line);
      if (match) resolve(match[1]!);
      else if (line.includes('geo catalog')) process.stderr.write(`[api] ${line}\n`);
    });
  });
  try {
    const listeningMs = performance.now() - spawned;
    for (const path of ['/v1/locations/search?catalog=FULL&q=par', '/v1/locations/search?q=par']) {
      const response = await fetch(`${base}${path}`);
      if (response.status !== 200) throw new Error(`${path} answered ${response.status} after the restart`);
      await response.arrayBuffer();
    }
    const readyMs = performance.now() - spawned;
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const rss = Number(/^process_resident_memory_bytes (\d+)/m.exec(metrics)?.[1] ?? Number.NaN);
    return { child, listeningMs, readyMs, rss };
  } catch (error) {
    await stop(child);
    throw error;
  }
}

/**
 * Writes the full-size synthetic catalog and returns only what the scenarios ask for: the rows
 * themselves are left to the collector, so the load generator (this process) runs on a small
 * heap and its measured latencies hold no pauses of its own collections.
 */
async function writeSyntheticCatalog(file: string) {
  const catalog = generateGeoCatalog();
  await writeGeoCatalog(file, catalog);
  const active = catalog.rows.filter((row) => row.active);
  const sampleIds = Array.from({ length: 2000 }, (_, i) => String(active[(i * 104729) % active.length]!.id));
  const sampled = new Set(sampleIds);
  const freshIds = Array.from({ length: 60_000 }, (_, i) => String(active[(i * 7 + 3) % active.length]!.id)).filter((id) => !sampled.has(id));
  return { sampleIds, freshIds, searchPrefixes: prefixes(active.map((row) => row.name), 200), countriesBySize: catalog.countriesBySize };
}

export async function run(): Promise<BenchRow[]> {
  const stack = await resolveStack((line) => process.stderr.write(`[stack] ${line}\n`));
  const folder = mkdtempSync(join(tmpdir(), 'geo-bench-'));
  const file = join(folder, 'geotargets-2026-08-12-generated.csv');
  const inputs = await writeSyntheticCatalog(file);
  const database = await benchDatabase(stack);
  const rows: BenchRow[] = [];
  let server: ChildProcess | undefined;
  try {
    const load = await loadFullCatalog(database.db, { file, log: (line) => process.stderr.write(`${line}\n`) });
    rows.push({ scenario: 'load full-size catalog (incl. LEGACY rebuild)', requests: load.sourceRows, seconds: Number(load.seconds.toFixed(1)), target: '< 30 s' });

    // Restarts of the real API with the catalog loaded: without snapshots (cold), then with the
    // snapshots the first start saved (warm).
    const cacheDir = join(folder, 'geo-index');
    const apiEnv = { DATABASE_URL: database.url, KEY_HASH_SECRET, GEO_CATALOG_FILE: file, GEO_INDEX_CACHE_DIR: cacheDir };
    const coldStart = await restartApi(apiEnv);
    await whenFilesExist([join(cacheDir, 'full.snapshot'), join(cacheDir, 'legacy.snapshot')]);
    await stop(coldStart.child);
    // Warm restarts are short: several, so one slow moment of a shared machine does not make the figure.
    const warmStarts: Awaited<ReturnType<typeof restartApi>>[] = [];
    for (let i = 0; i < WARM_RESTARTS; i++) {
      const restart = await restartApi(apiEnv);
      await stop(restart.child);
      warmStarts.push(restart);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
    const restartRow = (name: string, starts: typeof warmStarts, target = '') => {
      const ready = starts.map((start) => start.readyMs / 1000);
      return {
        scenario: `API restart with the full catalog loaded, ${name}: spawn to first answers (s); RSS then (MB)`,
        requests: starts.length,
        seconds: Number(median(ready).toFixed(2)),
        ...(starts.length > 1 && { range_s: `${Math.min(...ready).toFixed(2)}-${Math.max(...ready).toFixed(2)}` }),
        listening_s: Number((median(starts.map((start) => start.listeningMs)) / 1000).toFixed(2)),
        rss_idle_mb: Math.round(median(starts.map((start) => start.rss)) / 2 ** 20),
        target,
      };
    };
    rows.push(restartRow('cold: no snapshot, indexes built', [coldStart]));
    rows.push(restartRow(`warm: snapshots present (median of ${WARM_RESTARTS})`, warmStarts, '<= 3 s, <= 400 MB'));

    const started = await startBenchServer(import.meta.url, 'locations-server', {
      DATABASE_URL: database.url, KEY_HASH_SECRET, LOG_LEVEL: 'silent', GEO_INDEX_CACHE_DIR: cacheDir,
      // Production shares rate limits through Redis (one Redis round trip per location request); BENCH_REDIS=0 limits in-process.
      REDIS_URL: process.env.BENCH_REDIS === '0' ? '' : stack.redisUrl,
    });
    server = started.child;
    const { base } = started;
    const memory = async (resetPeak = false) =>
      (await (await fetch(`${base}/bench/rss${resetPeak ? '?reset=1' : ''}`)).json()) as {
        rss: number; heapUsed: number; peakRss: number; readyMs: number; fullReadMs: number; fullIndexMs: number; restored: boolean;
      };
    const atStart = await memory(true);
    rows.push({
      scenario: `bench API start (${atStart.restored ? 'indexes from snapshots' : 'indexes built'}): app ready (s); FULL read / index (s)`,
      requests: 0,
      seconds: Number((atStart.readyMs / 1000).toFixed(2)),
      full_read_s: Number((atStart.fullReadMs / 1000).toFixed(2)),
      full_index_s: Number((atStart.fullIndexMs / 1000).toFixed(2)),
    });

    const { sampleIds, freshIds, searchPrefixes, countriesBySize } = inputs;
    const bigCountries = countriesBySize.slice(0, 5);
    const scenarios: Scenario[] = [
      { name: 'FULL search, prefix 1-4 letters', paths: searchPrefixes.map((q) => `/v1/locations/search?catalog=FULL&q=${q}`), baseline: 'static-search', target: '>= 0.6, p99 <= 5 ms at half' },
      { name: 'FULL search, prefix + country', paths: searchPrefixes.map((q, i) => `/v1/locations/search?catalog=FULL&q=${q}&country=${bigCountries[i % bigCountries.length]}`), baseline: 'static-search', target: '>= 0.6, p99 <= 5 ms at half' },
      {
        name: 'FULL search, prefix + country, uncached',
        paths: countriesBySize.flatMap((country) => searchPrefixes.map((q) => `/v1/locations/search?catalog=FULL&q=${q}&country=${country}`)).filter((_, i) => i % 3 === 0),
        baseline: 'static-search',
        uncached: true,
      },
      { name: 'LEGACY search, prefix 1-4 letters', paths: searchPrefixes.map((q) => `/v1/locations/search?q=${q}`), baseline: 'static-search', target: '>= 0.6, p99 <= 5 ms at half' },
      { name: 'LEGACY search, prefix + country', paths: searchPrefixes.map((q, i) => `/v1/locations/search?q=${q}&country=${bigCountries[i % bigCountries.length]}`), baseline: 'static-search', target: '>= 0.6, p99 <= 5 ms at half' },
      { name: 'FULL resolve', paths: sampleIds.map((id) => `/v1/locations/resolve?catalog=FULL&location_id=${id}`), baseline: 'static-lookup', target: '>= 0.8' },
      { name: 'FULL lookup by id', paths: sampleIds.map((id) => `/v1/locations/${id}?catalog=FULL`), baseline: 'static-lookup', target: '>= 0.8' },
      { name: 'FULL lookup by id, uncached', paths: freshIds.map((id) => `/v1/locations/${id}?catalog=FULL`), baseline: 'static-lookup', uncached: true },
      { name: 'static envelope, search-page size', paths: ['/bench/limited/static-search'], baseline: null },
      { name: 'static envelope, lookup size', paths: ['/bench/limited/static-lookup'], baseline: null },
      { name: 'static envelope, search-page size, no rate limit', paths: ['/bench/static-search'], baseline: null },
      { name: 'static envelope, lookup size, no rate limit', paths: ['/bench/static-lookup'], baseline: null },
    ];

    const only = process.env.BENCH_ONLY;
    if (only) scenarios.splice(0, scenarios.length, ...scenarios.filter((s) => s.name.startsWith('static') || s.name.includes(only)));
    // Cold latency: each request once, one at a time, before anything is cached; this also warms
    // the caches for the load runs of the cached scenarios.
    const cold = new Map<string, { p50: number; p99: number; failures: number }>();
    for (const scenario of scenarios) {
      const times: number[] = [];
      let failures = 0;
      for (const path of scenario.uncached ? scenario.paths.slice(-200) : scenario.paths) {
        const start = performance.now();
        const response = await fetch(`${base}${path}`);
        await response.arrayBuffer();
        times.push(performance.now() - start);
        if (response.status !== 200) failures++;
      }
      times.sort((a, b) => a - b);
      cold.set(scenario.name, { p50: percentile(times, 50), p99: percentile(times, 99), failures });
    }

    const measured = new Map<string, Awaited<ReturnType<typeof cannon>> & { halfP50: number; halfP99: number; pairedBaseline: number }>();
    const baselinePath = { 'static-search': '/bench/limited/static-search', 'static-lookup': '/bench/limited/static-lookup' } as const;
    for (const scenario of scenarios) {
      process.stderr.write(`bench locations: ${scenario.name}\n`);
      // The machine is shared: the baseline runs right before its scenario, so both see the same load.
      const pairedBaseline = scenario.baseline ? (await cannon(base, [baselinePath[scenario.baseline]])).perSecond : 0;
      const middle = Math.floor(scenario.paths.length / 2);
      const [first, second] = scenario.uncached ? [scenario.paths.slice(0, middle), scenario.paths.slice(middle, -200)] : [scenario.paths, scenario.paths];
      const saturated = await cannon(base, first);
      const half = await cannon(base, second, Math.max(1, Math.floor(saturated.perSecond / 2)));
      measured.set(scenario.name, { ...saturated, halfP50: half.p50, halfP99: half.p99, pairedBaseline });
    }
    const staticRate = (baseline: Scenario['baseline'], suffix = '') =>
      baseline === 'static-search' ? measured.get(`static envelope, search-page size${suffix}`)!.perSecond
      : baseline === 'static-lookup' ? measured.get(`static envelope, lookup size${suffix}`)!.perSecond : 0;
    for (const scenario of scenarios) {
      const m = measured.get(scenario.name)!;
      const c = cold.get(scenario.name)!;
      rows.push({
        scenario: scenario.name,
        requests: scenario.paths.length,
        per_second: m.perSecond,
        p50_ms: m.p50,
        p99_ms: m.p99,
        half_rate_p50_ms: m.halfP50,
        half_rate_p99_ms: m.halfP99,
        cold_p50_ms: Number(c.p50.toFixed(2)),
        cold_p99_ms: Number(c.p99.toFixed(2)),
        non_2xx: m.non2xx + c.failures,
        baseline_per_second: m.pairedBaseline,
        ...(scenario.baseline && { ratio_unlimited: Number((m.perSecond / staticRate(scenario.baseline, ', no rate limit')).toFixed(2)) }),
        target: scenario.target ?? '',
      });
    }
    const after = await memory();
    rows.push({
      scenario: 'bench API RSS / JS heap used (MB): idle at start / peak under load (sampled every 100 ms) / after the runs',
      requests: 0,
      seconds: 0,
      rss_start_mb: Math.round(atStart.rss / 2 ** 20),
      rss_peak_mb: Math.round(after.peakRss / 2 ** 20),
      rss_after_mb: Math.round(after.rss / 2 ** 20),
      heap_start_mb: Math.round(atStart.heapUsed / 2 ** 20),
      heap_after_mb: Math.round(after.heapUsed / 2 ** 20),
      target: '<= 400 MB',
    });
  } finally {
    server?.kill('SIGTERM');
    await database.drop();
    rmSync(folder, { recursive: true, force: true });
  }
  return rows;
}

/** The bench's server process: the real API, plus static routes registered only here. */
async function serve() {
  // A ceiling no run reaches (more than the setting's 1,000,000 a minute allows): every request still pays the limiter's Redis round trip.
  const config = { ...loadConfig(process.env), locationRateLimit: 1_000_000_000 };
  const runtime = await openRuntime(config);
  const app = await buildApp({ runtime });
  const sample = async (url: string) => (await app.inject({ url })).json() as object;
  let staticSearch: object = {};
  let staticLookup: object = {};
  app.get('/bench/static-search', { schema: { hide: true } }, async () => staticSearch);
  app.get('/bench/static-lookup', { schema: { hide: true } }, async () => staticLookup);
  // The same envelopes behind the location routes' rate limit, in a context of their own.
  await app.register(async (limited) => {
    await limited.register(rateLimit, locationRateLimit(runtime));
    limited.get('/static-search', { schema: { hide: true } }, async () => staticSearch);
    limited.get('/static-lookup', { schema: { hide: true } }, async () => staticLookup);
  }, { prefix: '/bench/limited' });
  let readyMs = 0;
  let peakRss = 0;
  setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 100).unref();
  app.get('/bench/rss', { schema: { hide: true } }, async (request) => {
    const index = await fullReaderFor(runtime.db).current();
    const { rss, heapUsed } = process.memoryUsage();
    const answer = { rss, heapUsed, peakRss: Math.max(peakRss, rss), readyMs, fullReadMs: index?.timings.readMs ?? 0, fullIndexMs: index?.timings.indexMs ?? 0, restored: index?.timings.restored ?? false };
    if ((request.query as { reset?: string }).reset) peakRss = 0;
    return answer;
  });
  const started = performance.now();
  await app.ready();
  readyMs = performance.now() - started;
  // Same shapes and sizes as real answers, so serialization costs the same.
  staticSearch = await sample('/v1/locations/search?catalog=FULL&q=ka&limit=20');
  const id = ((staticSearch as { data: { locations: { location_id: string }[] } }).data.locations[0]!).location_id;
  staticLookup = await sample(`/v1/locations/${id}?catalog=FULL`);
  await listenForBench(app, runtime);
}

if (process.env.BENCH_ROLE === 'locations-server') {
  await serve();
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await run();
  printTable('locations', rows);
  writeResults('locations', rows);
  process.exit(0);
}
