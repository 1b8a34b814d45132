import type { BenchRow } from './support.js';
import { instanceLookupBench } from './instances.js';
import { queryBench } from './query.js';

/**
 * `npm run bench -- serving`: the serving ledger's figures in one run, each against its own
 * baseline measured in the same run: instance lookup of 100 ids per call over a million served
 * instances next to a static envelope of the same size; Query serves/s on Kafka next to a raw
 * producer appending the same events, with read_after_write_seconds from the server.
 */
export async function run(): Promise<BenchRow[]> {
  const instances = await instanceLookupBench();
  const query = await queryBench();
  return [...instances, ...query];
}
