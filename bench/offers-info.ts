import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import { loadConfig } from '../platform/config/config.js';
import { openRuntime } from '../platform/runtime.js';
import { buildApp } from '../services/api/app.js';
import { startProjectors } from '../services/projector/projectors.js';
import { commandRunner, DETAILS } from '../test/support/instance-world.js';
import { resolveStack } from '../test/support/stack.js';
import { listenForBench, startBenchServer, staticAnswerRoute, summarize } from './server.js';
import { benchDatabase, type BenchRow } from './support.js';

/**
 * `npm run bench -- offers-info`: GET /v1/offers/info by offer id and by tracked link, after the
 * answers are cached, next to a static envelope of the same size answered by the same process in
 * the same run; each at saturation and at half of it. Offers and links are written through the
 * admin commands.
 */
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const OFFERS = 200;
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
    const started = await startBenchServer(import.meta.url, 'offers-info-server', { DATABASE_URL: database.url, KEY_HASH_SECRET, LOG_LEVEL: 'silent', PROJECTORS: 'separate' });
    server = started.child;
    const { base } = started;
    const get = async (path: string) => (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } })).text();
    // Warm every answer into the cache, and give the static route the bytes of a real answer.
    let answer = '';
    for (const path of [...paths.byId, ...paths.byLink]) answer = await get(path);
    await fetch(`${base}/bench/static-info`, { method: 'PUT', body: answer, headers: { 'content-type': 'application/json' } });
    rows.push({ scenario: 'answer size (bytes)', bytes: answer.length });
    let staticRate = 0;
    for (const [scenario, list, target] of [
      ['static envelope of the same size', Array.from({ length: OFFERS }, () => '/bench/static-info'), ''],
      ['offer info by offer_id (cached)', paths.byId, '>= 0.8, p99 <= 5 ms at half'],
      ['offer info by offerurl (cached)', paths.byLink, '>= 0.7, p99 <= 5 ms at half'],
    ] as const) {
      process.stderr.write(`bench offers-info: ${scenario}\n`);
      const saturated = await cannon(base, list, key);
      const half = await cannon(base, list, key, Math.max(1, Math.floor(saturated.perSecond / 2)));
      if (!target) staticRate = saturated.perSecond;
      rows.push({
        scenario,
        per_second: saturated.perSecond,
        p50_ms: saturated.p50,
        p99_ms: saturated.p99,
        half_rate_p50_ms: half.p50,
        half_rate_p99_ms: half.p99,
        non_2xx: saturated.non2xx + half.non2xx,
        errors: saturated.errors + half.errors,
        baseline_per_second: target ? staticRate : 0,
        target,
      });
    }
  } finally {
    server?.kill('SIGTERM');
    await database.drop();
  }
  return rows;
}

/** The bench's server process: the real API, plus a static route that answers a stored envelope. */
async function serve() {
  const runtime = await openRuntime(loadConfig(process.env));
  const app = await buildApp({ runtime });
  let answer = '';
  app.put('/bench/static-info', { schema: { hide: true } }, async (request) => {
    answer = JSON.stringify(request.body);
    return {};
  });
  app.get('/bench/static-info', { schema: { hide: true } }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(answer));
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`listening ${address}\n`);
  process.on('SIGTERM', () => void app.close().then(() => runtime.close()).then(() => process.exit(0)));
}

if (process.env.BENCH_ROLE === 'offers-info-server') await serve();
