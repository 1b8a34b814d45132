import { onInterrupt } from '../../../platform/cli/on-interrupt.js';
import { Command, Option } from 'commander';
import { onceOnly } from '../../../platform/cli/once-only.js';
import { exitOnParseError, helpPointer } from '../../../platform/cli/parse-errors.js';
import { loadConfigOrExit } from '../../../platform/config/config.js';
import { openRuntime } from '../../../platform/runtime.js';
import { ExitCode, exitOnStartupFailure } from '../../../platform/startup.js';
import { awaitCaughtUp } from '../../../platform/projection/catch-up.js';
import { accountsProjection } from '../../../projections/accounts/projection.js';
import { findDeveloperByEmail } from '../../../projections/accounts/queries.js';
import { projections, startProjectors } from '../../projector/projectors.js';
import { HOUSE_EMAIL, seedAccounts } from './accounts.js';
import { seedCatalog } from './catalog.js';
import { seedServing } from './serving.js';
import { progressBars, seededRandom, seedSize, type SeedContext } from './seed-context.js';
import { ADVISORY_LOCK_KEYS } from '../../../platform/db/advisory-locks.js';
import { idleInTransactionAtMost } from '../../../platform/db/postgres.js';
import { reportUnexpectedFailures } from '../../../platform/cli/unexpected-failure.js';

reportUnexpectedFailures();

/**
 * `npm run seed -- --offers 10000`: a realistic data set built through the same events the admin
 * commands append, so the read models come from the projectors like any other data.
 */
const program = new Command('seed')
  .description('Append a realistic data set (accounts, keys, partners, offers, snapshots, links, serves, clicks and the postbacks of some clicks) as events. Once per database: a second run exits 2.')
  // Given once at most (a repeated flag is refused, as the admin CLI refuses it); the defaults are
  // applied below, since commander hands an option's default to its parser as a first value.
  .addOption(onceOnly(new Option('--offers <n>', 'number of offers, 1 to 1,000,000; developers, applications and partners scale with it (default: 500)')))
  .addOption(onceOnly(new Option('--serves <n>', 'cards served across the applications, 0 to 10,000,000, with clicks on about a quarter of their links (default: 1000)')))
  .addOption(onceOnly(new Option('--seed <n>', 'seed of the deterministic generator, 0 to 2147483647 (default: 1)')))
  .option('--no-progress', 'no progress (bars on a terminal, else a line every 5 s)')
  .option('--no-project', 'only append events; leave projecting to a running projector')
  // Unknown options and stray arguments are input errors, exit code 2 like the admin CLI's.
  .allowExcessArguments(false)
  .showHelpAfterError(helpPointer('npm run seed --'))
  .exitOverride(exitOnParseError)
  .parse();

const given = program.opts<{ offers?: string; serves?: string; seed?: string; progress: boolean; project: boolean }>();
const options = { ...given, offers: given.offers ?? '500', serves: given.serves ?? '1000', seed: given.seed ?? '1' };
function wholeNumber(flag: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    process.stderr.write(`error: ${flag} must be a whole number from ${min} to ${max}, got "${raw}"\n`);
    process.exit(ExitCode.invalidInput);
  }
  return value;
}
const offers = wholeNumber('--offers', options.offers, 1, 1_000_000);
const serves = wholeNumber('--serves', options.serves, 0, 10_000_000);
const seed = wholeNumber('--seed', options.seed, 0, 2 ** 31 - 1);

// The seed appends tens of thousands of events and projects them: it needs DATA_DIR alone.
const runtime = await openRuntime(loadConfigOrExit(), { description: 'npm run seed', redis: false }).catch((error: unknown) => exitOnStartupFailure(error, 'npm run seed'));
const context: SeedContext = {
  runtime,
  size: seedSize(offers),
  random: seededRandom(seed),
  now: () => new Date(),
  progress: progressBars(!options.progress ? 'none' : process.stderr.isTTY ? 'bars' : 'lines'),
  shared: new Map(),
};
/** How long the read models may take to reach the end of what was appended (a million serves take minutes). */
const PROJECT_TIMEOUT_MS = 60 * 60_000;

/** Where a new data set goes: on Kafka the log is the topics, which a fresh database would project again. */
function freshPlace(): string {
  if (!runtime.config.embedded.eventLog) return 'a fresh database with a TOPIC_PREFIX of its own';
  return runtime.config.embedded.database ? 'a fresh DATA_DIR' : 'a fresh database';
}

// Killed while appending, the log holds part of a data set, which a rerun refuses (above).
onInterrupt(() => `seed interrupted: the log may hold part of a data set, which a rerun here refuses; seed ${freshPlace()}`);
const started = performance.now();
try {
  const alone = await holdingSeedLock(async () => {
    // The seed appends its events without the commands' checks (a bulk load): a second run into the
    // same database would register every developer's email again.
    if (await seededBefore()) {
      process.stderr.write(`error: this database already holds a seeded data set (developer ${HOUSE_EMAIL}); seed ${freshPlace()}\n`);
      process.exitCode = ExitCode.invalidInput;
    } else {
      await seedDataSet();
    }
  });
  if (!alone) {
    process.stderr.write(`error: another npm run seed is seeding this database now (a database is seeded once); seed ${freshPlace()}\n`);
    process.exitCode = ExitCode.invalidInput;
  }
} finally {
  await runtime.close();
}

/**
 * Runs `work` as the only seed of this database, or answers false at once when another seed runs
 * on it: two seeds started together would both find it unseeded (on Postgres nothing else
 * serialises them; an embedded DATA_DIR has one process at a time anyway). A transaction-scoped
 * advisory lock, held by a transaction left open for the whole run (so exempt from the sessions'
 * DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: it is idle while the seed appends and projects).
 */
async function holdingSeedLock(work: () => Promise<void>): Promise<boolean> {
  if (runtime.db.engine !== 'postgres') {
    await work();
    return true;
  }
  return runtime.db.transaction(async (tx) => {
    await tx.exec(idleInTransactionAtMost(0));
    const { rows } = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [ADVISORY_LOCK_KEYS.seed]);
    if (!rows[0]!.locked) return false;
    await work();
    return true;
  });
}

/**
 * Whether the log already holds a seeded data set, projected or not: a seed killed while
 * appending leaves events no read model has applied, so the accounts read model is brought to the
 * log's end before it is asked (the house developer is the first event a seed appends).
 */
async function seededBefore(): Promise<boolean> {
  const projectors = await startProjectors(runtime, {}, [accountsProjection]);
  try {
    await awaitCaughtUp(runtime, [accountsProjection], PROJECT_TIMEOUT_MS);
  } finally {
    await projectors.stop();
  }
  return (await findDeveloperByEmail(runtime.db, HOUSE_EMAIL)) !== undefined;
}

async function seedDataSet() {
  await seedAccounts(context);
  await seedCatalog(context);
  await seedServing(context, serves);
  const appended = performance.now();
  process.stderr.write(`appended the events of ${offers} offers and ${serves} serves (with their clicks and postbacks) in ${((appended - started) / 1000).toFixed(1)} s\n`);
  if (options.project) {
    // Build the read models here too, so the data set is ready to query when seed returns.
    const projectors = await startProjectors(runtime);
    try {
      await awaitCaughtUp(runtime, projections, PROJECT_TIMEOUT_MS);
    } finally {
      await projectors.stop();
    }
    process.stderr.write(`read models caught up ${((performance.now() - appended) / 1000).toFixed(1)} s later\n`);
  }
}
