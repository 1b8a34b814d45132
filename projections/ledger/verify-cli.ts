import { Command as Program } from 'commander';
import { exitOnParseError, helpPointer } from '../../platform/cli/parse-errors.js';
import { loadConfigOrExit } from '../../platform/config/config.js';
import { exitUnlessThereIsADatabase, openDatabase } from '../../platform/runtime.js';
import { ExitCode, exitOnStartupFailure } from '../../platform/startup.js';
import { verifyFailure, verifyLedger } from './verify.js';
import { reportUnexpectedFailures } from '../../platform/cli/unexpected-failure.js';

reportUnexpectedFailures();

const ABOUT = `
Checks, per partition of the postbacks topic, that every decision follows the previous one
(prev_hash), that its hash matches its fields, that what it says was reported matches its
fingerprint, and that every conversion agrees with the decision that recorded it (none missing,
none extra). Exit codes: 0 verifies, 1 does not (the broken rows are named), 2 invalid flags or
nothing to verify, 4 the database is unavailable or DATA_DIR is in use by the service.
`;

/**
 * `npm run ledger:verify`: recomputes the postback ledger's hash chains. Exit 0 when every chain
 * and ledger row verifies, 1 naming the first broken row of each partition otherwise.
 */
async function run() {
  const config = loadConfigOrExit();
  // Verifying an embedded ledger that does not exist would create an empty one first.
  exitUnlessThereIsADatabase(config, 'ledger:verify', 'nothing to verify');
  const { db } = await openDatabase(config).catch((error: unknown) => exitOnStartupFailure(error, 'npm run ledger:verify'));
  try {
    // On a terminal one line redrawn; in a log file (no carriage returns there) a line each.
    const redraw = process.stderr.isTTY;
    let shown = false;
    const report = await verifyLedger(db, (partition, decisions) => {
      shown = true;
      process.stderr.write(redraw ? `\rpartition ${partition}: ${decisions} decisions checked` : `partition ${partition}: ${decisions} decisions checked\n`);
    });
    if (redraw && shown) process.stderr.write('\n');
    for (const { partition, decisions, head } of report.partitions) {
      process.stdout.write(`partition ${partition}: ${decisions} decisions, head ${head}\n`);
    }
    for (const broken of report.breaks) {
      process.stdout.write(`BROKEN partition ${broken.partition} at offset ${broken.offset} (correlation id ${broken.correlation_id}): ${broken.problem}\n`);
    }
    for (const row of report.conversionsOffChain) {
      process.stdout.write(`BROKEN conversion ${row.correlation_id} (partner ${row.partner_id}, identity ${row.identity_key}) no longer matches its decision\n`);
    }
    const ok = report.breaks.length === 0 && report.conversionsOffChain.length === 0;
    process.stdout.write(ok ? `ledger verifies: ${report.partitions.reduce((sum, p) => sum + p.decisions, 0)} decisions in ${report.partitions.length} partition(s)\n` : 'ledger does NOT verify: restore the named rows from the log (npm run replay) and find out who changed them\n');
    process.exitCode = ok ? ExitCode.ok : 1;
  } catch (error) {
    const [exitCode, nextStep] = verifyFailure(error);
    process.stderr.write(`error: ledger verification failed to run: ${(error as Error).message}; ${nextStep}\n`);
    process.exitCode = exitCode;
  } finally {
    await db.close();
  }
}

await new Program('ledger:verify')
  .description('Recompute the postback ledger\'s hash chains and check every conversion against its decision.')
  .addHelpText('after', ABOUT)
  .allowExcessArguments(false)
  .showHelpAfterError(helpPointer('npm run ledger:verify --'))
  .exitOverride(exitOnParseError)
  .action(run)
  .parseAsync(process.argv);
