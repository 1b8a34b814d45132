import pg from 'pg';
import { postbackLogSearch } from '../projections/ledger/queries.js';
import { logSearches, planScans, sampleOf, seedPostbackLog, type PlanNode } from '../test/support/postback-log-rows.js';
import { resolveStack } from '../test/support/stack.js';
import { benchDatabase, type BenchRow } from './support.js';

/**
 * `npm run bench -- postback-log-search`: the operator page's searches of postback_log, as
 * queries.ts builds them, on a table of BENCH_LOG_ROWS rows (default 1,000,000) seeded by SQL
 * alone (generate_series): 200 partners (in runs of 100 rows) over 90 days, 90 % accepted, 5 % already_recorded,
 * 3 % unmapped, 2 % identity_conflict. For each search: the node that reads the table (which
 * index), and EXPLAIN ANALYZE's execution time (median of 5, the page of 50 rows plus one).
 * Set BENCH_PLANS=1 to print every plan.
 */
const ROWS = Number(process.env.BENCH_LOG_ROWS ?? 1_000_000);
const RUNS = 5;
const progress = (line: string) => process.stderr.write(`bench postback-log-search: ${line}\n`);

export async function run(): Promise<BenchRow[]> {
  const stack = await resolveStack((line) => process.stderr.write(`[stack] ${line}\n`));
  const database = await benchDatabase(stack);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    progress(`seeding ${ROWS} rows with generate_series`);
    const seedStart = performance.now();
    await seedPostbackLog(client, ROWS);
    progress(`seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
    const rows: BenchRow[] = [];
    for (const [name, filter, page] of logSearches(await sampleOf(client, ROWS))) {
      const { text, values } = postbackLogSearch(filter, { ...page, limit: 50 });
      const times: number[] = [];
      let plan: { Plan: PlanNode; 'Execution Time': number } | undefined;
      for (let run = 0; run < RUNS; run += 1) {
        const result = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
        plan = (result.rows[0]['QUERY PLAN'] as [typeof plan])[0]!;
        times.push(plan['Execution Time']);
      }
      if (process.env.BENCH_PLANS) {
        const textPlan = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
        progress(`${name}\n${textPlan.rows.map((row) => row['QUERY PLAN']).join('\n')}`);
      }
      times.sort((a, b) => a - b);
      const returned = (await client.query(text, values)).rowCount ?? 0;
      rows.push({ search: name, reads: planScans(plan!.Plan).join(' + '), rows: Math.min(returned, 50), median_ms: Number(times[Math.floor(RUNS / 2)]!.toFixed(3)), table_rows: ROWS });
    }
    return rows;
  } finally {
    await client.end();
    await database.drop();
  }
}
