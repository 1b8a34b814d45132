import { STOPS, onInterruptPresses, type InterruptHandOver } from '../../platform/cli/on-interrupt.js';
import { Command as Program, Option } from 'commander';
import { onceOnly } from '../../platform/cli/once-only.js';
import { exitOnParseError, helpPointer } from '../../platform/cli/parse-errors.js';
import { loadConfig, type Config } from '../../platform/config/config.js';
import { SettingError, configurationProblem } from '../../platform/config/settings.js';
import type { EventLog } from '../../platform/events/event-log.js';
import type { Projection } from '../../platform/projection/projection.js';
import { DataDirBusyError } from '../../platform/data-dir/ownership.js';
import { ReplayInputError } from '../../platform/projection/point-in-time.js';
import type { RebuildProgress } from '../../platform/projection/rebuild.js';
import { replay, type ReplayReport } from '../../platform/projection/replay.js';
import { SwapError } from '../../platform/projection/swap.js';
import { closeBeforeExit, exitUnlessThereIsADatabase, openRuntime } from '../../platform/runtime.js';
import { CommandFailedError } from '../admin/command-gateway.js';
import { BackendUnavailableError, ExitCode, describeFailure } from '../../platform/startup.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { ReplayCancelledError } from './jobs.js';
import { replayProgressBar } from './progress.js';
import { MAX_KEYS, resolveReplayRequest, type ReplayRequest } from './request.js';
import { renderSummary } from './summary.js';
import { describedKeptSchemas } from '../../platform/projection/replay-schema.js';
import { SchemaInUseError, dropKeptSchemas, dropNamesOf, keptSchemasOf, type KeptSchemas } from './kept.js';
import { keptThroughOwner, replayThroughOwner } from './through-owner.js';

/** The flag each request option comes from, for messages. */
const FLAGS: Record<string, string> = { projections: '--projection', as_of: '--as-of', until: '--until', swap: '--swap', keep: '--keep', keys: '--keys', drop: '--drop', kept: '--kept' };

interface Flags {
  projection?: string[];
  all?: boolean;
  asOf?: string;
  until?: string;
  swap?: boolean;
  keep?: boolean;
  keys?: string;
  json?: boolean;
  kept?: boolean;
  drop?: string;
}

/** --keys as the request's `keys` takes it. */
function keysOf(text: string): number {
  const keys = /^\d{1,9}$/.test(text) ? Number(text) : -1;
  if (keys < 0 || keys > MAX_KEYS) throw new ReplayInputError('keys', `expected a whole number from 0 to ${MAX_KEYS}`);
  return keys;
}

function requestFrom(flags: Flags): ReplayRequest {
  if (flags.projection && flags.all) throw new ReplayInputError('projections', 'give --projection or --all, not both');
  const projections = flags.projection?.flatMap((names) => names.split(',')).map((name) => name.trim()).filter((name) => name !== '');
  // An empty --projection names nothing; taking it as --all would rebuild every read model unasked.
  if (projections?.length === 0) throw new ReplayInputError('projections', 'names no read model; give names (comma-separated) or --all');
  return {
    ...(projections ? { projections } : {}),
    ...(flags.asOf !== undefined ? { as_of: flags.asOf } : {}),
    ...(flags.until !== undefined ? { until: flags.until } : {}),
    ...(flags.swap ? { swap: true } : {}),
    ...(flags.keep ? { keep: true } : {}),
    ...(flags.keys !== undefined ? { keys: keysOf(flags.keys) } : {}),
  };
}

/**
 * In this process, or in the service when it owns the embedded DATA_DIR (only the owner may open
 * that database; the service keeps answering while the replay runs inside it).
 */
async function replayAnywhere(config: Config, request: ReplayRequest, onProgress: (progress: RebuildProgress) => void, signal: AbortSignal): Promise<ReplayReport> {
  let runtime;
  try {
    // A replay only reads the log: it creates no topic (the service does, when it starts).
    runtime = await openRuntime(config, { role: 'tool', description: 'npm run replay', redis: false, ensureTopics: false });
  } catch (error) {
    if (error instanceof DataDirBusyError && error.owner?.role === 'service') {
      process.stderr.write(`replaying inside the service that owns DATA_DIR (pid ${error.owner.pid}); it goes on answering meanwhile\n`);
      return replayThroughOwner(config, request, onProgress, signal);
    }
    throw error;
  }
  try {
    const options = resolveReplayRequest(request);
    await refuseMissingTopics(runtime.eventLog, options.projections, config.topicPrefix);
    return await replay(runtime.db, runtime.eventLog, { ...options, onProgress, signal, unansweredDatabaseMs: config.databaseUnansweredMs });
  } finally {
    await closeBeforeExit(runtime);
  }
}

/**
 * Topics the log does not have mean the wrong log (another TOPIC_PREFIX or broker, or a service
 * that never started there): said before anything is rebuilt, rather than replaying nothing.
 */
async function refuseMissingTopics(eventLog: EventLog, projections: readonly Projection[], topicPrefix: string): Promise<void> {
  const missing = await eventLog.missingTopics([...new Set(projections.flatMap((projection) => projection.topics))]);
  if (missing.length === 0) return;
  const where = eventLog.kind === 'kafka' ? 'TOPIC_PREFIX and KAFKA_BROKERS' : 'TOPIC_PREFIX';
  throw new SettingError(
    'TOPIC_PREFIX',
    `is ${JSON.stringify(topicPrefix)}, and this log has no topic ${missing.map((topic) => topicPrefix + topic).join(', ')}: check ${where} (the service creates its topics when it starts); nothing was replayed`,
  );
}

/**
 * `--kept` lists the schemas replays kept, `--drop a,b` drops some of them: here, or in the
 * service that owns the embedded DATA_DIR. Returns the names listed or dropped, and what each
 * listed one holds (null when it does not say).
 */
async function keptAnywhere(config: Config, drop: string[] | undefined): Promise<KeptSchemas> {
  let runtime;
  try {
    // Lists and drops schemas only: the log's topics are not created here.
    runtime = await openRuntime(config, { role: 'tool', description: 'npm run replay', redis: false, ensureTopics: false });
  } catch (error) {
    if (error instanceof DataDirBusyError && error.owner?.role === 'service') return keptThroughOwner(config, drop);
    throw error;
  }
  try {
    if (drop) return { names: await dropKeptSchemas(runtime.db, drop), about: {} };
    return keptSchemasOf(await describedKeptSchemas(runtime.db));
  } finally {
    await runtime.close();
  }
}

/** What --kept or --drop asks for, or undefined for a replay; refuses them with replay flags. */
function keptRequest(flags: Flags): { drop?: string[] } | undefined {
  if (!flags.kept && flags.drop === undefined) return undefined;
  if (flags.kept && flags.drop !== undefined) throw new ReplayInputError('drop', 'give --kept (list) or --drop (remove), not both');
  const replayFlags = (['projection', 'all', 'asOf', 'until', 'swap', 'keep', 'keys'] as const).filter((flag) => flags[flag] !== undefined);
  if (replayFlags.length > 0) throw new ReplayInputError(flags.kept ? 'kept' : 'drop', 'runs no replay: give it alone (with --json at most)');
  return flags.drop === undefined ? {} : { drop: dropNamesOf(flags.drop) };
}

/** The shell's exit code for a process ended by these signals. */
const SIGNAL_EXIT: Partial<Record<string, number>> = Object.fromEntries(STOPS);

/**
 * Ctrl-C (or a stop) cancels the replay, here or in the service: it stops before the swap and
 * drops its schemas (a swap under way is carried through). A second one leaves at once (the
 * copies of one press that a terminal, npm and tsx each deliver count once: onInterruptPresses).
 */
function cancelOnInterrupt(bar: { stop(): void }): AbortController {
  const interrupt = new AbortController();
  onInterruptPresses((signal, code) => {
    bar.stop();
    if (interrupt.signal.aborted) {
      process.stderr.write(`\nerror: left at once (${signal}): the replay's schemas may be left behind; npm run replay -- --kept lists them, --drop removes them\n`);
      process.exit(code);
    }
    process.stderr.write(`\n${signal}: stopping the replay and dropping its schemas (${signal} again leaves at once)\n`);
    interrupt.abort(new ReplayCancelledError(signal));
  });
  return interrupt;
}

function failure(error: unknown, replaying: boolean): { message: string; code: number } {
  if (error instanceof ReplayCancelledError) return { message: error.message, code: SIGNAL_EXIT[error.signal] ?? ExitCode.failure };
  if (error instanceof ReplayInputError) return { message: `${FLAGS[error.option] ?? error.option}: ${error.message}`, code: ExitCode.invalidInput };
  if (error instanceof SettingError) return { message: configurationProblem(error), code: ExitCode.invalidInput };
  if (error instanceof DataDirBusyError) return { message: `${error.message}; retry when it has finished`, code: ExitCode.unavailable };
  if (error instanceof BackendUnavailableError) return { message: `cannot replay: ${error.message}`, code: ExitCode.unavailable };
  if (error instanceof CommandFailedError) return { message: error.message, code: error.exitCode };
  if (error instanceof SchemaInUseError) return { message: error.message, code: ExitCode.unavailable };
  if (error instanceof SwapError) return { message: `nothing was swapped: ${error.message}`, code: ExitCode.unavailable };
  // A replay's schemas were dropped on the way out: nothing is left half done to clean up.
  const next = replaying ? 'nothing of this replay was kept: run it again once that is fixed' : 'run it again once that is fixed';
  // Its session cut or refused (a restart, a network cut) is the database, not the replay, failing.
  if (isDatabaseUnavailable(error)) return { message: `cannot replay: DATABASE_URL: the database stopped answering (${describeFailure(error)}); ${next.replace('that is fixed', 'it answers')}`, code: ExitCode.unavailable };
  return { message: `${(error as Error).message}; ${next}`, code: ExitCode.failure };
}

/**
 * The replay command; `handOver` replaces the handlers the entry point installed while it loaded
 * (cli.ts) with the command's once it is about to create something: from then on the command says
 * what a signal stopped. Until then (bad input, --kept, --drop) a signal ends it as the loader says.
 */
export function buildReplayCli(handOver: InterruptHandOver): Program {
  return new Program('replay')
    .description(
      'Rebuilds read models from the log into a fresh Postgres schema beside the live ones and compares them table by table; ' +
        '--swap makes the rebuilt ones live; --as-of / --until rebuild them as they were then, kept for queries. ' +
        'Exit codes: 0 done (identical, or swapped in), 2 invalid input, 4 a backend or DATA_DIR unavailable, 5 the rebuilt read models differ (without --swap), 1 other failures.',
    )
    .addOption(new Option('--projection <names>', 'read models to rebuild, comma-separated (repeatable): see services/projector/projectors.ts').argParser((value: string, previous: string[] = []) => [...previous, value]))
    .addOption(new Option('--all', 'every read model (the default)'))
    .addOption(onceOnly(new Option('--as-of <time>', 'rebuild as they were at this RFC 3339 time, e.g. 2026-11-01T00:00:00Z')))
    .addOption(onceOnly(new Option('--until <positions>', 'rebuild up to these log positions, topic:partition:offset,… (events below each offset)')))
    .addOption(new Option('--swap', 'make the rebuilt read models live (atomically, at the live positions)'))
    .addOption(new Option('--keep', 'keep the replay schemas (rebuilt tables, the live copy compared with, retired tables)'))
    .addOption(onceOnly(new Option('--keys <n>', 'differing keys shown per table (default 10)')))
    .addOption(new Option('--json', 'print the report as JSON instead of a summary'))
    .addOption(new Option('--kept', 'list the schemas replays kept (point in time, --keep, an interrupted replay) instead of replaying'))
    .addOption(onceOnly(new Option('--drop <schemas>', 'drop kept replay schemas (comma-separated replay_… names, as --kept lists them) instead of replaying')))
    .showHelpAfterError(helpPointer('npm run replay --'))
    .exitOverride(exitOnParseError)
    .action(async (flags: Flags) => {
      const bar = replayProgressBar();
      let code: number;
      let replaying = false;
      try {
        const kept = keptRequest(flags);
        if (kept) {
          const keptConfig = loadConfig();
          exitUnlessThereIsADatabase(keptConfig, 'replay', 'no replay schemas to list or drop');
          const { names, about } = await keptAnywhere(keptConfig, kept.drop);
          bar.stop();
          const verb = kept.drop ? 'dropped' : 'kept';
          const line = (name: string) => `${verb}: ${name}${about[name] ? ` (${about[name]})` : ''}`;
          const json = kept.drop ? { dropped: names } : { kept: names, about };
          process.stdout.write(flags.json ? `${JSON.stringify(json)}\n` : names.length === 0 ? `no kept replay schemas\n` : `${names.map(line).join('\n')}\n`);
          process.exit(ExitCode.ok);
        }
        replaying = true;
        const request = requestFrom(flags);
        // Bad input fails before any backend is opened.
        resolveReplayRequest(request);
        const interrupt = handOver(() => cancelOnInterrupt(bar));
        const config = loadConfig();
        exitUnlessThereIsADatabase(config, 'replay', 'no read models to compare a replay with');
        const ahead = request.as_of === undefined ? 0 : Date.parse(request.as_of) - Date.now();
        if (ahead > 0) process.stderr.write(`waiting ${Math.ceil(ahead / 1000)} s for ${request.as_of} to pass, so the rebuild holds everything logged until then\n`);
        const report = await replayAnywhere(config, request, (progress) => bar.update(progress), interrupt.signal);
        bar.stop();
        process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderSummary(report, { queryable: !config.embedded.database }));
        if (interrupt.signal.aborted) process.stderr.write(`interrupted after the swap had begun: it was carried through${report.swapped ? ', the rebuilt read models are live' : ''}\n`);
        code = report.mode === 'compare' && !report.identical && !report.swapped ? ExitCode.differs : ExitCode.ok;
      } catch (error) {
        bar.stop();
        const { message, code: exitCode } = failure(error, replaying);
        process.stderr.write(`error: ${message}\n`);
        code = exitCode;
      }
      // A backend client left retrying in the background must not keep the process alive.
      process.exit(code);
    });
}

