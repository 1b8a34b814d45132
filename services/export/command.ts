import { leftToTheInterrupt, onInterrupt, type InterruptHandOver } from '../../platform/cli/on-interrupt.js';
import { fromCallerFolder } from '../../platform/cli/caller-folder.js';
import { Command as Program, Option } from 'commander';
import { onceOnly } from '../../platform/cli/once-only.js';
import { exitOnParseError, helpPointer } from '../../platform/cli/parse-errors.js';
import { loadConfig } from '../../platform/config/config.js';
import { SettingError, configurationProblem } from '../../platform/config/settings.js';
import { DataDirBusyError } from '../../platform/data-dir/ownership.js';
import { untilAborted } from '../../platform/async/until-aborted.js';
import { watchDatabaseAnswers } from '../../platform/db/unanswered-database.js';
import { closeBeforeExit, exitUnlessThereIsADatabase, openRuntime } from '../../platform/runtime.js';
import { BackendUnavailableError, ExitCode, busyAdvice, describeFailure } from '../../platform/startup.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { exportEvents } from './export-events.js';
import { exportReadModel } from './export-read-model.js';
import { flagFailure, parseExportFlags, type ExportFlags } from './options.js';
import { barProgress } from './progress.js';
import { ExportThroughOwnerError, STOP_WAIT_MS, exportThroughOwner } from './through-owner.js';
import { removeUnfinished } from './writers/file.js';

const EXAMPLES = `
Examples:
  npm run export -- --topic postbacks --format parquet --out postbacks.parquet
  npm run export -- --topic postbacks --from 2026-11-01T00:00:00Z --to 2026-12-01T00:00:00Z --out november.csv
  npm run export -- --topic postbacks --from postbacks:0:1500,postbacks:1:1480 --out tail.ndjson
  npm run export -- --topic offers --type OfferUpserted --out offers.parquet
  npm run export -- --read-model conversions --out conversions.parquet

--from is inclusive, --to exclusive. Times are RFC 3339, compared with each event's log timestamp
(to the millisecond). Positions are topic:partition:offset; partitions not named start at the
beginning (--from) or end where the log ended when the export started (--to).
Without --type the columns are the union of the topic's event types (event_type tells them apart).
CSV and ndjson files get their schema beside them in FILE.schema.json; Parquet files carry it in
their key-value metadata. On the embedded default, while the service holds DATA_DIR, the export
runs inside the service (it goes on answering). Exit codes: 0 done, 2 invalid flag (named), 4 backend unavailable, 1 failure;
Ctrl-C (SIGTERM) removes the unfinished file (FILE.partial) and exits 130 (143).
`;

/**
 * Ctrl-C (or a stop) stops the export, here or in the service, and removes the unfinished file
 * before the process ends, so an interrupted export leaves nothing behind; the exit code is the
 * shell's for the signal. The export is waited for (briefly): one that was already moving its
 * file into place when the signal came completes it, and is then said to be complete, never
 * "nothing was written" beside a file that is there.
 */
function removePartialOnInterrupt(out: string, stop: () => Promise<boolean>) {
  onInterrupt(async (signal) => {
    if (await stop().catch(() => false)) return `export interrupted (${signal}) after it had finished: ${out} is complete`;
    removeUnfinished(out);
    return `export interrupted (${signal}); nothing was written at ${out}`;
  });
}

/** Whether `exporting` completed its file, once it has settled or STOP_WAIT_MS have passed (false then). */
async function completed(exporting: Promise<unknown> | undefined): Promise<boolean> {
  if (!exporting) return false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), STOP_WAIT_MS)));
  try {
    return await Promise.race([exporting.then(() => true, () => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function run(flags: ExportFlags, handOver: InterruptHandOver) {
  // Relative to the folder the command was run in, as the user typed it (npm run starts in the project's).
  const parsed = parseExportFlags(flags.out === undefined || flags.out === '' ? flags : { ...flags, out: fromCallerFolder(flags.out) });
  /** Stops the export (here, or the one the service runs for this command) and says whether it had completed its file. */
  let stop = async () => false;
  handOver(() => removePartialOnInterrupt(parsed.request.out, () => stop()));
  // Exports need the database and the log; Redis only serves the API.
  const config = { ...loadConfig(), redisUrl: undefined };
  exitUnlessThereIsADatabase(config, 'export', 'nothing to export', { onlyTheLog: flags.topic !== undefined });
  let runtime;
  try {
    // Read only: a topic the log lacks is refused (--topic), not created.
    runtime = await openRuntime(config, { description: 'npm run export', redis: false, ensureTopics: false });
  } catch (error) {
    if (!(error instanceof DataDirBusyError && error.owner?.role === 'service')) throw error;
    // On the embedded default only the service may open DATA_DIR: it runs the export and goes on answering.
    process.stderr.write(`exporting inside the service that owns DATA_DIR (pid ${error.owner.pid}); it goes on answering meanwhile\n`);
    const result = await exportThroughOwner(config, { ...flags, out: parsed.request.out }, barProgress(), (cancel) => (stop = cancel));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  // On Postgres, the database it reads (a read model, or the log it holds) may stop answering altogether.
  const readsTheDatabase = parsed.kind === 'read_model' || runtime.eventLog.kind === 'embedded';
  const watch = watchDatabaseAnswers(runtime.db, readsTheDatabase ? config.databaseUnansweredMs : 0, 'check that Postgres answers there, then run the export again (the unfinished file was removed: nothing was kept)');
  const interrupt = new AbortController();
  const signal = AbortSignal.any([watch.signal, interrupt.signal]);
  try {
    const exported =
      parsed.kind === 'events'
        ? exportEvents(runtime.eventLog, { ...parsed.request, topicPrefix: config.topicPrefix }, barProgress(), signal)
        : exportReadModel(runtime.db, parsed.request, barProgress(), signal);
    stop = () => {
      interrupt.abort(new Error('interrupted'));
      return completed(exported);
    };
    const result = await untilAborted(exported, watch.signal);
    process.stdout.write(`${JSON.stringify({ rows: result.rows, format: parsed.request.format, files: result.files })}\n`);
  } catch (error) {
    // Stopped by Ctrl-C: its handler says how the export ended, and ends the process.
    if (interrupt.signal.aborted) return leftToTheInterrupt();
    // The export is left waiting on the database: what it wrote is removed here, as a failure's is.
    if (error === watch.signal.reason) {
      removeUnfinished(parsed.request.out);
      throw error;
    }
    // Said like the log's own failures (exit 4, to run again once it answers), not as a failed export.
    if (config.databaseUrl && isDatabaseUnavailable(error)) {
      throw new BackendUnavailableError('DATABASE_URL', `the database stopped answering during the export (${describeFailure(error)})`, 'check that Postgres runs there, then run the export again (nothing was kept)');
    }
    throw error;
  } finally {
    watch.stop();
    await closeBeforeExit(runtime);
  }
}

/**
 * The export command; `handOver` replaces the handlers the entry point installed while it loaded
 * (cli.ts) with the command's once its flags are read: from then on the command says what a
 * signal stopped.
 */
export function buildExportCli(handOver: InterruptHandOver): Program {
  return new Program('export')
    .description('Write decoded events of one topic, or a read model table, to an ndjson, CSV or Parquet file.')
    .addOption(onceOnly(new Option('--topic <topic>', 'the topic whose events to export')))
    .addOption(onceOnly(new Option('--read-model <table>', 'a read model table to export instead: conversions or postback_log')))
    .addOption(onceOnly(new Option('--schema <replay schema>', 'with --read-model: the table as a replay kept it (replay_<time>, e.g. a point-in-time ledger), not the live one')))
    .addOption(onceOnly(new Option('--from <time|positions>', 'first event: RFC 3339 time or topic:partition:offset,… (default: the beginning)')))
    .addOption(onceOnly(new Option('--to <time|positions>', 'end, exclusive: RFC 3339 time or topic:partition:offset,… (default: the end of the log at start)')))
    .addOption(onceOnly(new Option('--type <event type>', 'only this event type (e.g. PostbackReceived); its fields are the columns')))
    .addOption(onceOnly(new Option('--format <format>', 'ndjson, csv or parquet (default: from the --out extension)')))
    .addOption(onceOnly(new Option('--out <file>', 'the file to write (replaced when it exists)')))
    .addHelpText('after', EXAMPLES)
    .showHelpAfterError(helpPointer('npm run export --'))
    .exitOverride(exitOnParseError)
    .action(async (flags: ExportFlags) => {
      try {
        await run(flags, handOver);
        process.exitCode = ExitCode.ok;
      } catch (error) {
        // A failure of the flags (exit 2, naming the flag).
        const input = flagFailure(error)?.message;
        // A setting, not a flag: no pointer to the flags' help under it.
        if (error instanceof SettingError) {
          process.stderr.write(`error: ${configurationProblem(error)}\n`);
          process.exitCode = ExitCode.invalidInput;
        } else if (input !== undefined) {
          process.stderr.write(`error: ${input}\n(npm run export -- --help shows every flag with examples)\n`);
          process.exitCode = ExitCode.invalidInput;
        } else if (error instanceof DataDirBusyError) {
          process.stderr.write(`error: ${busyAdvice(error, 'npm run export')}\n`);
          process.exitCode = ExitCode.unavailable;
        } else if (error instanceof ExportThroughOwnerError) {
          process.stderr.write(`error: ${error.message}\n`);
          process.exitCode = error.unavailable ? ExitCode.unavailable : ExitCode.failure;
        } else if (error instanceof BackendUnavailableError) {
          process.stderr.write(`error: cannot export: ${error.message}\n`);
          process.exitCode = ExitCode.unavailable;
        } else {
          process.stderr.write(`error: export failed: ${(error as Error).message}; ${nextStep(error)}\n`);
          process.exitCode = ExitCode.failure;
        }
      }
      // A backend client left retrying in the background must not keep the command alive.
      process.exit(process.exitCode);
    });
}

/** What to do after an export failed for a reason of its own (what it wrote is removed). */
function nextStep(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'the disk holding --out is full: free space there, or give --out on another disk, and run it again (nothing was kept)';
  return 'nothing was kept: run it again once that is fixed';
}
