import { loadConfigOrExit } from '../../platform/config/config.js';
import { openDatabase } from '../../platform/runtime.js';
import { exitOnStartupFailure } from '../../platform/startup.js';
import { verifyLedger } from './verify.js';

/**
 * `npm run ledger:verify`: recomputes the postback ledger's hash chains. Exit 0 when every chain
 * and ledger row verifies, 1 naming the first broken row of each partition otherwise.
 */
const config = loadConfigOrExit();
const { db } = await openDatabase(config).catch((error: unknown) => exitOnStartupFailure(error, 'npm run ledger:verify'));
try {
  const report = await verifyLedger(db, (partition, decisions) => process.stderr.write(`\rpartition ${partition}: ${decisions} decisions checked`));
  process.stderr.write('\n');
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
  process.exitCode = ok ? 0 : 1;
} catch (error) {
  process.stderr.write(`ledger verification failed to run: ${(error as Error).message}\n`);
  process.exitCode = 2;
} finally {
  await db.close();
}
