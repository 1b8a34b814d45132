import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { loadConfig } from '../platform/config/config.js';
import { openRuntime } from '../platform/runtime.js';
import { startProjectors } from '../services/projector/projectors.js';
import { commandRunner, DETAILS } from '../test/support/instance-world.js';
import { resolveStack } from '../test/support/stack.js';
import { halfRate, medianRun, saturationColumns, startBenchServer, serveWithStaticAnswer, summarize, type LoadRun } from './server.js';
import { benchDatabase, type BenchRow } from './support.js';

/**
 * `npm run bench -- offers-info`: GET /v1/offers/info by offer id and by tracked link, after the
 * answers are cached, next to a static envelope of the same size answered by the same process in
 * the same run for the same request targets; each at saturation and at half of it. Then the same reads with the cache off
 * (OFFER_INFO_CACHE_ENTRIES=0). Offers and links are written through the admin commands.
 */
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const OFFERS = 200;
/** Alternating saturated runs of the static route and the route measured. */
const ROUNDS = 3;
const KEY_HASH_SECRET = 'bench-key-hash-secret-0123456789abcdef';

async function seed(databaseUrl: string) {
  const runtime = await openRuntime(loadConfig({ DATABASE_URL: databaseUrl, KEY_HASH_SECRET, LOG_LEVEL: 'silent' }));
  const projectors = await startProjectors(runtime);
  try {
    const run = commandRunner(runtime);
    const { partner_id } = await run('partner:configure', { name: 'Bench partner' });
    const { developer_id } = await run('developer:register', { name: 'Bench', email: 'bench@offers-info.test' });
    const { application_id } = await run('application:register', { developer_id, name: 'bench' });
    const { key } = await run('api-key:issue', { application_id });
    const paths: { byId: string[]; byLink: string[] } = { byId: [], byLink: [] };
    for (let index = 0; index < OFFERS; index += 1) {
      const { offer_id } = await run('offer:upsert', { partner_id, kind: 'local', status: 'active', details: DETAILS });
      const { url } = await run('link:register', { offer_id, shape: 'short_code', application_id });
      paths.byId.push(`/v1/offers/info?offer_id=${offer_id}`);
      // A link as app servers hold them: with its own query and fragment, encoded as one parameter.
      paths.byLink.push(`/v1/offers/info?offerurl=${encodeURIComponent(`${url}?sub_id1=feed#card`)}`);
    }
    return { key: key as string, paths };
  } finally {
    await projectors.stop();
    await runtime.close();
  }
}

async function cannon(base: string, paths: string[], key: string, overallRate?: number) {
  let next = 0;
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: DURATION_S,
    requests: [{ method: 'GET', headers: { authorization: `Bearer ${key}` }, setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }) }],
    ...(overallRate ? { overallRate } : {}),
  });
  return summarize(result);
}

export async function run(): Promise<BenchRow[]> {
  const stack = await resolveStack((line) => process.stderr.write(`[stack] ${line}\n`));
  const database = await benchDatabase(stack);
  let server: ChildProcess | undefined;
  const rows: BenchRow[] = [];
  try {
    process.stderr.write(`bench offers-info: seeding ${OFFERS} offers with links\n`);
    const { key, paths } = await seed(database.url);
    const serverEnv = { DATABASE_URL: database.url, KEY_HASH_SECRET, LOG_LEVEL: 'silent', PROJECTORS: 'separate' };
    const started = await startBenchServer(import.meta.url, 'offers-info-server', serverEnv);
    server = started.child;
    const { base } = started;
    const get = async (path: string) => (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } })).text();
    // Warm every answer into the cache.
    const answers = new Map<string, string>();
    for (const path of [...paths.byId, ...paths.byLink]) answers.set(path, await get(path));

    const measure = async (scenario: string, serverBase: string, list: string[]) => {
      process.stderr.write(`bench offers-info: ${scenario}\n`);
      const saturated = await cannon(serverBase, list, key);
      return { saturated, half: await cannon(serverBase, list, key, halfRate(saturated)) };
    };
    const row = (scenario: string, { saturated, half }: Awaited<ReturnType<typeof measure>>, baseline: number, target: string): BenchRow => ({
      scenario,
      ...saturationColumns(saturated, half),
      baseline_per_second: baseline,
      target,
    });

    // Each read is compared with the static route asked with the same request targets (so the
    // request bytes, the client's work and the framework's query parsing are the same). The two
    // alternate over ROUNDS saturated runs and the medians are compared, so a noisy moment on this
    // shared machine lands on both sides; latency is then taken once at half the median rate.
    const baselines = new Map<string, number>();
    for (const [name, list, target] of [
      ['offer_id', paths.byId, '>= 0.8, p99 <= 5 ms at half'],
      ['offerurl', paths.byLink, '>= 0.7, p99 <= 5 ms at half'],
    ] as const) {
      const staticList = list.map((path) => `/bench/static-info${path.slice(path.indexOf('?'))}`);
      // The static route sends the bytes of a real answer of this kind (with `action` for a link).
      const answer = answers.get(list[0]!)!;
      await fetch(`${base}/bench/static-info`, { method: 'PUT', body: answer, headers: { 'content-type': 'application/json' } });
      rows.push({ scenario: `answer size by ${name} (bytes)`, bytes: answer.length });
      const runs: Record<'static' | 'route', LoadRun[]> = { static: [], route: [] };
      for (let round = 1; round <= ROUNDS; round += 1) {
        process.stderr.write(`bench offers-info: by ${name}, round ${round} of ${ROUNDS} (static, then the route)\n`);
        runs.static.push(await cannon(base, staticList, key));
        runs.route.push(await cannon(base, list, key));
      }
      const staticMedian = medianRun(runs.static);
      const routeMedian = medianRun(runs.route);
      const staticHalf = await cannon(base, staticList, key, halfRate(staticMedian));
      const routeHalf = await cannon(base, list, key, halfRate(routeMedian));
      baselines.set(name, staticMedian.perSecond);
      rows.push(row(`static envelope, ${name} targets (median of ${ROUNDS})`, { saturated: staticMedian, half: staticHalf }, 0, ''));
      rows.push(row(`offer info by ${name} (cached, median of ${ROUNDS})`, { saturated: routeMedian, half: routeHalf }, staticMedian.perSecond, target));
    }

    // The same reads with OFFER_INFO_CACHE_ENTRIES=0: every request reads Postgres (the key lookup stays cached).
    server.kill('SIGTERM');
    const uncached = await startBenchServer(import.meta.url, 'offers-info-server', { ...serverEnv, OFFER_INFO_CACHE_ENTRIES: '0' });
    server = uncached.child;
    for (const [name, list] of [['offer_id', paths.byId], ['offerurl', paths.byLink]] as const) {
      const scenario = `offer info by ${name} (uncached)`;
      rows.push(row(scenario, await measure(scenario, uncached.base, list), baselines.get(name)!, 'reported'));
    }
  } finally {
    server?.kill('SIGTERM');
    await database.drop();
  }
  return rows;
}


if (process.env.BENCH_ROLE === 'offers-info-server') await serveWithStaticAnswer('/bench/static-info', 'GET');
