import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import { loadConfig, settings } from '../platform/config/config.js';
import { openRuntime, type Runtime } from '../platform/runtime.js';
import { buildApp } from '../services/api/app.js';
import { median } from './support.js';

const API_MAIN = fileURLToPath(new URL('../services/api/main.ts', import.meta.url));
export const PROJECTOR_MAIN = fileURLToPath(new URL('../services/projector/main.ts', import.meta.url));

/** The service's own settings are left out of the inherited environment: a child is configured by `env` alone. */
const SERVICE_SETTINGS = new Set(Object.values(settings).map((setting) => setting.name));

/**
 * Node's flags for a service process: those of `npm start` (package.json; `npm run projector`
 * has the same), then BENCH_SERVICE_NODE_ARGS (e.g. --cpu-prof), so a bench measures the services
 * as they run.
 */
function serviceNodeArgs(): string[] {
  const start = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const flags = /^exec node ((?:--\S+ )*)--import tsx /.exec(start);
  if (!flags) throw new Error(`the start script of package.json no longer reads "exec node [flags] --import tsx …": ${start}`);
  return [...flags[1]!.split(' ').filter(Boolean), ...(process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
}

/**
 * A service entry point (the API, the projector or a CLI, with `args`) in a process of its own, configured by `env`
 * only (a stack exported in the bench's shell does not leak into an embedded run). Its stdout
 * goes to the bench's stderr, so the table on stdout stays clean. BENCH_SERVICE_NODE_ARGS adds
 * node options (e.g. `--cpu-prof --cpu-prof-dir=prof`, which NODE_OPTIONS does not accept).
 */
export function spawnService(entry: string, env: Record<string, string>, args: string[] = []): ChildProcess {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SERVICE_SETTINGS.has(name)));
  return spawn(process.execPath, [...serviceNodeArgs(), '--import', 'tsx', entry, ...args], { env: { ...inherited, ...env }, stdio: ['ignore', 2, 'inherit'] });
}

/** The API (services/api/main.ts) on `base`, resolved once /readyz answers. */
export async function startApi(env: Record<string, string>, base: string): Promise<ChildProcess> {
  const child = spawnService(API_MAIN, env);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}`);
    const ready = await fetch(`${base}/readyz`).then((response) => response.ok, () => false);
    if (ready) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGTERM');
  throw new Error('the API did not become ready within 60 s');
}

/** SIGTERM, resolved once the process has exited (its graceful shutdown done). */
export async function stopService(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * A bench's server runs in a process of its own, so the load generator never shares its event
 * loop: the bench module spawns itself with BENCH_ROLE set, and the child answers on a free port.
 * BENCH_SERVICE_NODE_ARGS applies here too.
 */
export function startBenchServer(moduleUrl: string, role: string, env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [...serviceNodeArgs(), '--import', 'tsx', fileURLToPath(moduleUrl)], {
    env: { ...process.env, ...env, BENCH_ROLE: role },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^listening (\S+)$/.exec(line);
      if (match) resolve({ child, base: match[1]! });
    });
  });
}

/** The child's side: listen on a free port, tell the parent where, close cleanly on SIGTERM. */
export async function listenForBench(app: FastifyInstance, runtime: Runtime): Promise<void> {
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`listening ${address}\n`);
  process.on('SIGTERM', () => void app.close().then(() => runtime.close()).then(() => process.exit(0)));
}

/**
 * The baseline route of a bench: `PUT path` stores a real answer, `method path` sends those bytes
 * back, so the baseline serializes nothing and sends the same size as the route measured.
 */
function staticAnswerRoute(app: FastifyInstance, path: string, method: 'GET' | 'POST') {
  let answer = '';
  app.put(path, { schema: { hide: true } }, async (request) => {
    answer = JSON.stringify(request.body);
    return {};
  });
  app.route({ method, url: path, schema: { hide: true }, handler: async (_request, reply) => reply.type('application/json; charset=utf-8').send(answer) });
}

/** A bench's server process: the real API on the environment's backends, plus a static baseline route. */
export async function serveWithStaticAnswer(path: string, method: 'GET' | 'POST'): Promise<void> {
  const runtime = await openRuntime(loadConfig(process.env));
  const app = await buildApp({ runtime });
  staticAnswerRoute(app, path, method);
  await listenForBench(app, runtime);
}

/** The figures every bench reports of one load run. */
export function summarize(result: autocannon.Result) {
  return { perSecond: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

export type LoadRun = ReturnType<typeof summarize>;

/** The run of the median rate. */
export const medianRun = (runs: readonly LoadRun[]) => median(runs, (run) => run.perSecond);

/** Half of a saturated rate, the load latency is measured at. */
export const halfRate = (saturated: LoadRun) => Math.max(1, Math.floor(saturated.perSecond / 2));

/** A row's columns of a route measured at saturation and again at half of that rate. */
export function saturationColumns(saturated: LoadRun, half: LoadRun) {
  return {
    per_second: saturated.perSecond,
    p50_ms: saturated.p50,
    p99_ms: saturated.p99,
    half_rate_p50_ms: half.p50,
    half_rate_p99_ms: half.p99,
    non_2xx: saturated.non2xx + half.non2xx,
    errors: saturated.errors + half.errors,
  };
}

/** Memory figures a service reports on /metrics (prom-client's process series, and the instance cache's). */
export interface ServiceMemory {
  residentBytes: number;
  cachedCards: number;
  cacheBytes: number;
}

/** Reads a service's /metrics; a series it does not report reads 0. */
export async function serviceMemory(base: string): Promise<ServiceMemory> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    residentBytes: value('process_resident_memory_bytes'),
    cachedCards: value('instance_cache_cards'),
    cacheBytes: value('instance_cache_bytes'),
  };
}

/** Cumulative counts of a histogram's observations by bound (seconds, as its le label), from the service's own /metrics. */
export type DurationBuckets = Map<string, number>;

/** A histogram's buckets summed over the series whose labels include `label` (every series without one). */
export async function histogramBuckets(base: string, metric: string, label?: string): Promise<DurationBuckets> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const buckets: DurationBuckets = new Map();
  for (const [, labels, count] of text.matchAll(new RegExp(`^${metric}_bucket\\{([^}]*)\\} (\\d+)$`, 'gm'))) {
    if (label !== undefined && !labels!.includes(label)) continue;
    const bound = /le="([^"]+)"/.exec(labels!)![1]!;
    buckets.set(bound, (buckets.get(bound) ?? 0) + Number(count));
  }
  return buckets;
}

/** A route's answers by duration bound. */
export const routeDurations = (base: string, route: string) => histogramBuckets(base, 'http_request_duration_seconds', `route="${route}"`);

/**
 * The service's own p99 of what it observed between two readings of a histogram (its request
 * durations, unless another is read), as the bucket bound it is within (ms; Infinity past the
 * last bound, NaN when nothing was observed). A request's duration runs from its arrival in the
 * process to its answer: what it leaves out of a load generator's p99 is time in queues and
 * sockets, and the load generator's own.
 */
export function serviceP99Ms(before: DurationBuckets, after: DurationBuckets): number {
  const counts = [...after].map(([bound, count]) => [Number(bound === '+Inf' ? Infinity : bound), count - (before.get(bound) ?? 0)] as const).sort((a, b) => a[0] - b[0]);
  const total = counts.at(-1)?.[1] ?? 0;
  if (total === 0) return Number.NaN;
  const within = counts.find(([, count]) => count >= 0.99 * total);
  return within ? within[0] * 1000 : Infinity;
}

/** Clock ticks per second of /proc's CPU times. */
let clockTicks: number | undefined;

/**
 * CPU seconds a process has used so far (user and system, all its threads), from /proc (Linux).
 * A rate divided by this is how much work each request cost the service, a figure the other
 * processes and virtual machines sharing the cores disturb far less than the rate itself.
 */
export function processCpuSeconds(pid: number): number {
  clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  // proc(5): after "pid (command) " come state (field 3) … utime (14) and stime (15).
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  return (Number(fields[14 - 3]) + Number(fields[15 - 3])) / clockTicks;
}
