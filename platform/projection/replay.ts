import { setTimeout as sleep } from 'node:timers/promises';
import { PAST_DEADLINE, withinDeadline } from '../async/deadline.js';
import { untilAborted } from '../async/until-aborted.js';
import { cancelledWith } from './cancel-statements.js';
import type { Db } from '../db/db.js';
import { watchDatabaseAnswers } from '../db/unanswered-database.js';
import { BackendUnavailableError } from '../startup.js';
import type { EventLog } from '../events/event-log.js';
import { compareTable, tableChecksum, type TableChecksum } from './checksum.js';
import { pointInTimeBounds, type PointInTime } from './point-in-time.js';
import { listPositions, positionsIn, samePositions, type Position, type Positions } from './positions.js';
import type { Projection } from './projection.js';
import { startRebuild, type RebuildProgress, type ReplayStep } from './rebuild.js';
import { analyzeTables, buildIndexes, createReplaySchema, currentSchema, describeKeptSchema, dropSchemas, heartbeatWhileRunning, snapshotLive } from './replay-schema.js';
import { SWAP_CATCH_UP_MS, swapIntoLive } from './swap.js';

export interface ReplayOptions {
  projections: Projection[];
  /** Rebuild as the read models were then (kept for queries; nothing compared or swapped). */
  pointInTime?: PointInTime;
  /** The projections were named one by one (an --until that misses one of their topics is an error). */
  explicit?: boolean;
  /** Make the rebuilt tables live (swap.ts). */
  swap?: boolean;
  /** Keep the schemas (rebuilt tables, the live copy, retired tables); a point-in-time rebuild always keeps its own. */
  keep?: boolean;
  /** Differing keys listed per table (default 10). */
  keys?: number;
  /** Name of the new schema; default `replay_<UTC time to the millisecond>`. */
  schema?: string;
  now?: () => Date;
  onProgress?(progress: RebuildProgress): void;
  /**
   * Stops the replay while it rebuilds or compares (its schemas dropped, the abort's reason
   * thrown); once the swap has begun it is carried through: a half-swapped read model is worse.
   */
  signal?: AbortSignal;
  /**
   * On Postgres: once the database has answered nothing for this long (DATABASE_UNANSWERED_MS),
   * whatever the step, the replay stops (BackendUnavailableError naming DATABASE_URL), and its
   * clean-up's DROP SCHEMA waits no longer either. 0 or absent: it waits for as long as it takes.
   */
  unansweredDatabaseMs?: number;
}

export interface TableReport {
  projection: string;
  table: string;
  rebuilt: TableChecksum;
  /** The live table at the same positions (not for a point-in-time rebuild). */
  live?: TableChecksum;
  /** Present when rebuilt and live differ: rows on one side only and some of their keys. */
  difference?: { only_live: number; only_rebuilt: number; keys: Record<string, unknown>[]; key_count: number };
}

export interface ReplayReport {
  mode: 'compare' | 'point-in-time';
  /** Schema the tables were rebuilt in (after a swap they are in `live`; this one keeps their offsets). */
  schema: string;
  /** Schema of the live read models. */
  live: string;
  /** Schemas left in the database for queries: the rebuilt tables, the live copy, the retired tables. */
  kept: string[];
  swapped: boolean;
  /** Positions the read models were rebuilt to. */
  positions: Position[];
  skipped: { projection: string; missing: string[] }[];
  /** Events applied and the time the rebuild took, its indexes built (comparison not included). */
  events: number;
  seconds: number;
  tables: TableReport[];
  /** Every table equal to the live one (compare mode). */
  identical?: boolean;
  /** Schemas of a finished replay that should have been dropped and could not be (the database failed then): drop them with --drop. */
  leftBehind?: string[];
}

/** `replay_20261101t000000123z`-like: sorts by time, valid unquoted. */
const defaultSchemaName = (now: Date) => `replay_${now.toISOString().replace(/[-:.]/g, '').toLowerCase()}`;

async function livePartitionsOf(eventLog: EventLog, projections: Projection[]) {
  const result: { projection: string; topic: string; partition: number }[] = [];
  for (const projection of projections) {
    for (const topic of projection.topics) {
      for (const end of await eventLog.endOffsets(topic)) result.push({ projection: projection.name, topic, partition: end.partition });
    }
  }
  return result;
}

/** Every rebuilt table against the live copy, with the differences when there are any. */
async function compareTables(db: Db, tables: { projection: string; table: string }[], live: string, rebuilt: string, keys: number, signal?: AbortSignal): Promise<TableReport[]> {
  const reports: TableReport[] = [];
  for (const { projection, table } of tables) {
    signal?.throwIfAborted();
    const { left, right, difference } = await compareTable(db, table, live, rebuilt, keys, db.engine === 'pglite');
    reports.push({
      projection,
      table,
      rebuilt: right,
      live: left,
      ...(difference ? { difference: { only_live: difference.onlyLeft, only_rebuilt: difference.onlyRight, keys: difference.keys, key_count: difference.keyCount } } : {}),
    });
  }
  return reports;
}

/**
 * Rebuilds read models from the log into a fresh schema beside the live one, while the live
 * service goes on. Compare mode rebuilds to exactly where the live read models stand (taken from
 * a snapshot copy of them, so a busy projector never makes the comparison wrong), compares every
 * table and, with `swap`, makes the rebuilt tables live. Point-in-time mode rebuilds to positions
 * in the past and keeps the schema for queries.
 */
export async function replay(db: Db, eventLog: EventLog, options: ReplayOptions): Promise<ReplayReport> {
  const limitMs = db.engine === 'postgres' ? (options.unansweredDatabaseMs ?? 0) : 0;
  const watch = watchDatabaseAnswers(db, limitMs, 'the replay stopped, leaving nothing behind: run it again once it answers');
  try {
    return await replayWatched(db, eventLog, options, { unanswered: watch.signal, limitMs });
  } finally {
    watch.stop();
  }
}

/**
 * What waits on the database: `answered(work)` is the work's result, or the watch's error once
 * the database has not answered for the limit (the work is left behind, as a cancel leaves it).
 */
interface DatabaseWatch {
  unanswered: AbortSignal;
  /** The limit, also for the clean-up's DROP SCHEMA (0: none). */
  limitMs: number;
}

const answeredWithin = (watch: DatabaseWatch) => <T>(work: Promise<T>): Promise<T> => untilAborted(work, watch.unanswered);

async function replayWatched(db: Db, eventLog: EventLog, options: ReplayOptions, watch: DatabaseWatch): Promise<ReplayReport> {
  const answered = answeredWithin(watch);
  const now = options.now ?? (() => new Date());
  const schema = options.schema ?? defaultSchemaName(now());
  const live = await answered(currentSchema(db));
  const pointInTime = options.pointInTime?.asOf || options.pointInTime?.until ? options.pointInTime : undefined;
  if (pointInTime?.asOf) await untilPassed(pointInTime.asOf, now, options.signal);
  const plan = pointInTime ? await pointInTimeBounds(eventLog, options.projections, pointInTime, options.explicit ?? false) : undefined;
  const projections = plan?.projections ?? options.projections;
  const names = projections.map((projection) => projection.name);
  const tables = projections.flatMap((projection) => projection.tables.map((table) => ({ projection: projection.name, table })));
  const tableNames = tables.map(({ table }) => table);
  options.signal?.throwIfAborted();

  // Not on the embedded database: it runs one statement at a time, and one index build over a
  // whole table would hold the service's every request for its length; rows keep their indexes
  // up to date a batch at a time there.
  // It waits for the live tables' locks: as long as a long statement holds one.
  const creation = () => createReplaySchema(db, live, schema, tableNames, { deferIndexes: db.engine !== 'pglite', running: true });
  const deferredIndexes = await answered(cancelledWith(db, [schema], options.signal, creation)).catch(async (error: unknown) => {
    // A failed creation rolled back; one the database left unanswered may have committed.
    if (error === watch.unanswered.reason) await dropAfterFailure(db, [schema], error, options.signal, watch.limitMs);
    throw error;
  });
  const stopHeartbeat = heartbeatWhileRunning(db, schema);
  let report: ReplayReport | undefined;
  const liveCopy: LiveCopy = {};
  try {
    report = await rebuildInto(db, eventLog, options, watch, { schema, live, plan, projections, names, tables, deferredIndexes, liveCopy });
  } finally {
    // Its last beat is left unanswered by a database that stopped answering: not waited for then.
    await answered(stopHeartbeat({ finished: report !== undefined })).catch(() => {});
  }
  // Found again later by what they hold, not only by the time the replay ran; never worth the replay's own error.
  for (const [kept, about] of keptDescriptions(report, names, pointInTime, now(), liveCopy)) await answered(describeKeptSchema(db, kept, about)).catch(() => {});
  return report;
}

/** `topic:partition:next,…`, as --until takes them. */
const positionsText = (positions: Position[]) => [...new Set(positions.map((position) => `${position.topic}:${position.partition}:${position.next}`))].join(',');

/** The live read models' copy a compare-mode replay takes: when, and at which positions. */
interface LiveCopy {
  at?: Date;
  positions?: Positions;
}

/**
 * Waits until `asOf` has passed (it is at most a minute ahead: parseAsOf refuses more), so the
 * events logged until then are in the log and the rebuild holds them, as its name will say.
 */
async function untilPassed(asOf: Date, now: () => Date, signal?: AbortSignal): Promise<void> {
  const ahead = asOf.getTime() - now().getTime();
  if (ahead < 0) return;
  // A cancel stops the wait as it stops the rest: with the abort's reason.
  await sleep(ahead + 1, undefined, { signal }).catch((error: unknown) => {
    throw signal?.aborted ? signal.reason : error;
  });
}

/** What each kept schema holds, for `--kept` (the names say only when the replay ran). */
function keptDescriptions(report: ReplayReport, names: string[], pointInTime: PointInTime | undefined, now: Date, liveCopy: LiveCopy): [string, string][] {
  const what = names.join(', ');
  const at = now.toISOString();
  if (report.mode === 'point-in-time') {
    const positions = positionsText(report.positions);
    const point = pointInTime?.asOf ? `as of ${pointInTime.asOf.toISOString()}` : 'up to the positions given';
    return [[report.schema, `${what} ${point} (positions ${positions}), rebuilt ${at}`]];
  }
  return report.kept.map((kept): [string, string] => {
    if (kept.endsWith('_live')) {
      // Copied before the comparison (and any swap): its own time and positions, not the replay's end.
      const copied = liveCopy.at?.toISOString() ?? at;
      const where = liveCopy.positions ? ` (positions ${positionsText(listPositions(liveCopy.positions))})` : '';
      return [kept, `the live ${what} at ${copied}${where}, as compared with ${report.schema}`];
    }
    if (kept.endsWith('_retired')) return [kept, `the ${what} the swap of ${report.schema} retired at ${at}`];
    return [kept, `${what} rebuilt from the log to the live positions, ${at}`];
  });
}

/**
 * Drops what a failed replay created. When the drop fails too (the database went away), the
 * failure says which schemas are left and how to drop them: "nothing was kept" would be untrue,
 * and they would turn up later as partial rebuilds nobody explained.
 */
async function dropAfterFailure(db: Db, schemas: string[], failure: unknown, signal: AbortSignal | undefined, limitMs: number): Promise<void> {
  let dropFailure: Error | undefined;
  try {
    // A database that stopped answering would hold the drop, and the process, for good.
    const dropped = limitMs > 0 ? await withinDeadline(dropSchemas(db, schemas), limitMs) : await dropSchemas(db, schemas);
    if (dropped === PAST_DEADLINE) dropFailure = new Error(`no answer within ${limitMs / 1000} s`);
  } catch (error) {
    dropFailure = error as Error;
  }
  if (dropFailure) {
    // A cancel's own message says its schemas were dropped; an unavailable backend's, what to do once it answers.
    const setting = db.engine === 'pglite' ? 'DATA_DIR' : 'DATABASE_URL';
    const why = signal?.aborted && failure === signal.reason
      ? 'cancelled'
      : failure instanceof BackendUnavailableError
        ? failure.setting === setting ? failure.detail : `${failure.setting}: ${failure.detail}`
        : (failure as Error).message;
    throw new BackendUnavailableError(
      setting,
      `the replay stopped (${why}) and its schemas ${schemas.join(', ')} could not be dropped (${dropFailure.message})`,
      `once it answers, drop them with npm run replay -- --drop ${schemas.join(',')} (accepted a minute after this replay stopped; npm run replay -- --kept lists what is left), then run the replay again`,
    );
  }
}

async function rebuildInto(
  db: Db,
  eventLog: EventLog,
  options: ReplayOptions,
  watch: DatabaseWatch,
  { schema, live, plan, projections, names, tables, deferredIndexes, liveCopy }: {
    liveCopy: LiveCopy;
    schema: string;
    live: string;
    plan: Awaited<ReturnType<typeof pointInTimeBounds>> | undefined;
    projections: ReplayOptions['projections'];
    names: string[];
    tables: { projection: string; table: string }[];
    deferredIndexes: string[];
  },
): Promise<ReplayReport> {
  const tableNames = tables.map(({ table }) => table);
  const copy = `${schema}_live`;
  const retired = `${schema}_retired`;
  const created = [schema];
  // Monotonic: the duration reported must not take in a step of the wall clock.
  const started = performance.now();
  let rebuiltAt = started;
  let swapped = false;
  let positions: Positions;
  let reports: TableReport[];
  // Once the events are applied the replay says which step it is on (index builds, the
  // comparison and the swap take seconds to minutes, with the bar at 100 % all along).
  let step: ReplayStep | undefined;
  const onProgress = options.onProgress && ((progress: RebuildProgress) => options.onProgress!(step ? { ...progress, step } : progress));
  const answered = answeredWithin(watch);
  // A cancel that came while the schema was created (it waits on the live tables' locks) stops
  // here, before the log's consumers are started only to be stopped.
  if (options.signal?.aborted) {
    await dropAfterFailure(db, created, options.signal.reason, options.signal, watch.limitMs);
    throw options.signal.reason;
  }
  const rebuild = await answered(startRebuild({ db, eventLog, schema, projections, onProgress })).catch(async (error: unknown) => {
    await dropAfterFailure(db, created, error, options.signal, watch.limitMs);
    throw error;
  });
  const { signal } = options;
  // A cancel, or a database that stopped answering, stops the wait for the log.
  const stopped = signal ? AbortSignal.any([signal, watch.unanswered]) : watch.unanswered;
  const reach = (target: Positions) => untilAborted(rebuild.reach(target), stopped);
  /** A step of long statements (a whole table copied, indexed or checksummed), cut short by a cancel (not the swap: it is carried through). */
  const cancellable = <T>(step: () => Promise<T>) => answered(cancelledWith(db, [schema], signal, step));
  /** A schema the statement under way creates: left unanswered, its commit may have gone through all the same. */
  let creating: string | undefined;
  // Its consumers wait for the batches under way, which a database that stopped answering never ends.
  const stopRebuild = () => answered(rebuild.stop()).catch((error: unknown) => {
    if (error !== watch.unanswered.reason) throw error;
  });
  const announce = (next: ReplayStep) => {
    step = next;
    onProgress?.(rebuild.progress());
  };
  try {
    if (plan) {
      await reach(plan.bounds);
      announce('building indexes');
      await cancellable(() => buildIndexes(db, deferredIndexes, signal));
      await cancellable(() => analyzeTables(db, schema, tableNames));
      signal?.throwIfAborted();
      rebuiltAt = performance.now();
      positions = plan.bounds;
      reports = [];
      announce('checksumming');
      for (const { projection, table } of tables) reports.push({ projection, table, rebuilt: await cancellable(() => tableChecksum(db, table, schema, db.engine === 'pglite')) });
    } else {
      // Most of the work: up to where the live read models stood at the start.
      await reach(await answered(positionsIn(db, live, names)));
      creating = copy;
      positions = await cancellable(() => snapshotLive(db, live, copy, tableNames, names));
      liveCopy.at = (options.now ?? (() => new Date()))();
      liveCopy.positions = positions;
      creating = undefined;
      // Only now: a failed snapshot rolled its schema back, and a drop of it would fail.
      created.push(copy);
      await reach(positions);
      announce('building indexes');
      await cancellable(() => buildIndexes(db, deferredIndexes, signal));
      await cancellable(() => analyzeTables(db, schema, tableNames));
      signal?.throwIfAborted();
      rebuiltAt = performance.now();
      if (!samePositions(positions, await answered(positionsIn(db, schema, names)))) {
        throw new Error('the live read models moved back during the replay (another replay swapped them?); run it again');
      }
      announce('comparing');
      reports = await cancellable(() => compareTables(db, tables, copy, schema, options.keys ?? 10, signal));
      // The last moment a cancel stops it.
      signal?.throwIfAborted();
      if (options.swap) {
        announce('swapping');
        const partitions = await livePartitionsOf(eventLog, projections);
        // Carried through whatever a cancel says; not when the database stops answering (nothing can be done then).
        creating = retired;
        positions = await answered(swapIntoLive(db, {
          live,
          rebuilt: schema,
          retired,
          projections,
          partitions,
          catchUp: (target) => rebuild.reach(target, SWAP_CATCH_UP_MS),
        }));
        creating = undefined;
        created.push(retired);
        swapped = true;
        // Its tables are live now: what is left of it (its own offsets) is of no use to anyone.
        // A drop that fails now fails no swap: it is tried again below, and said if it fails again.
        if ((await undroppable(db, [schema], answered)).length === 0) created.splice(created.indexOf(schema), 1);
      }
    }
  } catch (error) {
    if (creating && error === watch.unanswered.reason) created.push(creating);
    await stopRebuild();
    await dropAfterFailure(db, created, error, signal, watch.limitMs);
    throw error;
  }
  await stopRebuild();
  const keep = options.keep || plan !== undefined;
  // The replay is done (swapped, or compared): schemas it could not drop are said, not its failure.
  const leftBehind = keep ? [] : await undroppable(db, created, answered);
  const events = rebuild.progress().applied;
  return {
    mode: plan ? 'point-in-time' : 'compare',
    schema,
    live,
    kept: keep ? created : [],
    swapped,
    positions: listPositions(positions),
    skipped: plan?.skipped ?? [],
    events,
    seconds: (rebuiltAt - started) / 1000,
    tables: reports,
    ...(plan ? {} : { identical: reports.every((report) => !report.difference) }),
    ...(leftBehind.length > 0 && { leftBehind }),
  };
}

/** Drops `schemas`, each on its own; answers those the database refused to drop, or left `answered` unanswered. */
async function undroppable(db: Db, schemas: string[], answered: <T>(work: Promise<T>) => Promise<T>): Promise<string[]> {
  const left: string[] = [];
  for (const schema of schemas) await answered(dropSchemas(db, [schema])).catch(() => left.push(schema));
  return left;
}
