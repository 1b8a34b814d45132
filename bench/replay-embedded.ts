import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnService, startApi, stopService } from './server.js';
import { printTable, writeResults, type BenchRow } from './support.js';

/**
 * The embedded default goes on answering while a replay or an export runs in it: a DATA_DIR seeded with
 * SERVES served cards (and their clicks and postbacks: `npm run seed`), the API started on it,
 * then `npm run replay -- --all` (which runs in the API, the owner of DATA_DIR) while a client
 * asks GET /healthz every PROBE_EVERY_MS, each probe timed from its start; then the same during
 * `npm run export` of the postbacks topic (Parquet) and of the postback_log read model (CSV). The baseline is the
 * same probing for as long with nothing else running. The embedded engine runs every statement on
 * the API's thread, so a probe waits for whatever statement is running: the longest probe is the
 * longest time the service could not answer anything.
 */
const SERVES = Number(process.env.BENCH_SERVES ?? 40_000);
const OFFERS = 500;
const PROBE_EVERY_MS = 20;
const SEED_MAIN = fileURLToPath(new URL('../services/admin/seed/main.ts', import.meta.url));
const REPLAY_MAIN = fileURLToPath(new URL('../services/replay/cli.ts', import.meta.url));
const EXPORT_MAIN = fileURLToPath(new URL('../services/export/cli.ts', import.meta.url));

function progress(line: string) {
  process.stderr.write(`bench replay-embedded: ${line}\n`);
}

/** A CLI of the service to its end (configured by `env` alone, as spawnService does); rejects on a non-zero exit. */
function runCli(entry: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawnService(entry, env, args);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${entry} ${args.join(' ')} exited with ${code}`))));
  });
}

/** Probes `url` every PROBE_EVERY_MS until `during` settles; the probes' durations in ms. */
async function probeWhile(url: string, during: Promise<unknown>): Promise<number[]> {
  let done = false;
  const settled = during.finally(() => {
    done = true;
  });
  const took: number[] = [];
  while (!done) {
    const started = performance.now();
    const response = await fetch(url);
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    took.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
  }
  await settled;
  return took;
}

function probeRow(scenario: string, took: number[], seconds: number): BenchRow {
  const sorted = [...took].sort((a, b) => a - b);
  const at = (share: number) => Number(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!.toFixed(1));
  return { scenario, seconds: Number(seconds.toFixed(1)), probes: took.length, p50_ms: at(0.5), p99_ms: at(0.99), longest_ms: Number(sorted[sorted.length - 1]!.toFixed(1)) };
}

export async function run(): Promise<BenchRow[]> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-replay-embedded-'));
  const port = 18_000 + Math.floor(Math.random() * 1_000);
  const env = { DATA_DIR: join(folder, 'data'), HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' };
  const base = `http://127.0.0.1:${port}`;
  let api: ReturnType<typeof spawnService> | undefined;
  try {
    progress(`seeding ${SERVES} served cards into ${env.DATA_DIR}`);
    await runCli(SEED_MAIN, ['--offers', String(OFFERS), '--serves', String(SERVES)], env);
    api = await startApi(env, base);
    progress('replaying every read model while probing /healthz');
    const replayStarted = performance.now();
    const replayed = runCli(REPLAY_MAIN, ['--all'], env);
    const during = await probeWhile(`${base}/healthz`, replayed);
    const replaySeconds = (performance.now() - replayStarted) / 1000;
    const exports: BenchRow[] = [];
    for (const [what, args] of [
      ['npm run export -- --topic postbacks (Parquet)', ['--topic', 'postbacks', '--out', join(folder, 'postbacks.parquet')]],
      ['npm run export -- --read-model postback_log (CSV)', ['--read-model', 'postback_log', '--out', join(folder, 'postback_log.csv')]],
    ] as const) {
      progress(`${what} while probing /healthz`);
      const started = performance.now();
      const took = await probeWhile(`${base}/healthz`, runCli(EXPORT_MAIN, [...args], env));
      exports.push(probeRow(`GET /healthz during ${what}`, took, (performance.now() - started) / 1000));
    }
    progress('the same probing with nothing running');
    const idleStarted = performance.now();
    const idle = await probeWhile(`${base}/healthz`, new Promise((resolve) => setTimeout(resolve, replaySeconds * 1000)));
    return [
      probeRow('GET /healthz, nothing else running (baseline)', idle, (performance.now() - idleStarted) / 1000),
      probeRow(`GET /healthz during npm run replay -- --all (${SERVES} served cards seeded)`, during, replaySeconds),
      ...exports,
    ];
  } finally {
    await stopService(api);
    rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await run();
  printTable('replay-embedded', rows);
  writeResults('replay-embedded', rows);
  process.exit(0);
}
