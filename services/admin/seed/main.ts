import { Command } from 'commander';
import { loadConfigOrExit } from '../../../platform/config/config.js';
import { openRuntime } from '../../../platform/runtime.js';
import { startProjectors } from '../../projector/projectors.js';
import { seedAccounts } from './accounts.js';
import { seedCatalog } from './catalog.js';
import { progressBars, seededRandom, seedSize, type SeedContext } from './seed-context.js';

/**
 * `npm run seed -- --offers 10000`: a realistic data set built through the same events the admin
 * commands append, so the read models come from the projectors like any other data.
 */
const program = new Command('seed')
  .description('Append a realistic data set (accounts, keys, partners, offers, snapshots, links) as events.')
  .option('--offers <n>', 'number of offers; developers, applications and partners scale with it', '500')
  .option('--seed <n>', 'seed of the deterministic generator', '1')
  .option('--no-progress', 'no progress bars')
  .option('--no-project', 'only append events; leave projecting to a running projector')
  .parse();

const options = program.opts<{ offers: string; seed: string; progress: boolean; project: boolean }>();
const offers = Number(options.offers);
if (!Number.isInteger(offers) || offers < 1 || offers > 1_000_000) {
  process.stderr.write(`error: --offers must be a whole number from 1 to 1000000, got "${options.offers}"\n`);
  process.exit(2);
}

const runtime = await openRuntime(loadConfigOrExit());
const context: SeedContext = {
  runtime,
  size: seedSize(offers),
  random: seededRandom(Number(options.seed)),
  now: () => new Date(),
  progress: progressBars(options.progress && process.stderr.isTTY !== false),
  shared: new Map(),
};
const started = performance.now();
try {
  await seedAccounts(context);
  await seedCatalog(context);
  const appended = performance.now();
  process.stderr.write(`appended the events of ${offers} offers in ${((appended - started) / 1000).toFixed(1)} s\n`);
  if (options.project) {
    // Build the read models here too, so the data set is ready to query when seed returns.
    const projectors = await startProjectors(runtime);
    while ((await projectors.totalLag()) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    await projectors.stop();
    process.stderr.write(`read models caught up ${((performance.now() - appended) / 1000).toFixed(1)} s later\n`);
  }
} finally {
  await runtime.close();
}
