import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendEvents } from '../commands/append.js';
import { exportEvents } from '../services/export/export-events.js';
import { FORMATS } from '../services/export/schema-document.js';
import { postbackEvents } from '../test/support/postback-events.js';
import { resolveStack } from '../test/support/stack.js';
import { benchDatabase, kafkaBenchRuntime, printTable, rate, rawDecode, timed, writeResults, type BenchRow } from './support.js';

/**
 * `npm run bench -- export`: rows a second of `npm run export` of BENCH_EXPORT_EVENTS logged
 * postbacks (27 fields) from Kafka into each format, against a raw kafkajs consumer of its own
 * group that only decodes the same events (Avro through the registry) in the same run. Both
 * include joining their consumer group; the exports include writing and completing the file
 * (the ndjson file of a million postbacks is about 1 GB; each file is removed once measured).
 */
const EVENTS = Number(process.env.BENCH_EXPORT_EVENTS ?? 1_000_000);
const APPEND_BATCH = 5_000;

const progress = (line: string) => process.stderr.write(`bench export: ${line}\n`);

export async function run(): Promise<BenchRow[]> {
  const stack = await resolveStack((line) => process.stderr.write(`[stack] ${line}\n`));
  const database = await benchDatabase(stack);
  const { runtime, prefix } = await kafkaBenchRuntime(stack, database.url);
  const dir = mkdtempSync(join(tmpdir(), 'offer-ledger-bench-export-'));
  try {
    for (let start = 0; start < EVENTS; start += APPEND_BATCH) {
      await appendEvents(runtime, 'postbacks', postbackEvents(Math.min(APPEND_BATCH, EVENTS - start), Date.UTC(2026, 10, 1) + start * 1_000));
      if ((start / APPEND_BATCH) % 40 === 0) progress(`seeded ${start} of ${EVENTS} postbacks`);
    }
    // The median of three: the baseline is short, and one slow run would flatter every ratio.
    const raw: number[] = [];
    for (let run = 1; run <= 3; run += 1) {
      progress(`raw decode baseline, run ${run} of 3`);
      raw.push(await rawDecode(stack, [`${prefix}postbacks`], EVENTS));
    }
    const median = raw.sort((a, b) => a - b)[1]!;
    const baseline = { baseline: 'raw kafkajs consumer, decode only (median of 3)', baseline_per_second: rate(EVENTS, median) };
    const rows: BenchRow[] = [];
    for (const format of FORMATS) {
      progress(`export to ${format}`);
      const out = join(dir, `postbacks.${format}`);
      let exported = 0;
      const ms = await timed(async () => {
        exported = (await exportEvents(runtime.eventLog, { topic: 'postbacks', format, out, topicPrefix: prefix })).rows;
      });
      if (exported !== EVENTS) throw new Error(`the ${format} export wrote ${exported} rows, not ${EVENTS}`);
      rows.push({ backend: 'kafka', measure: `export ${format}`, rows: EVENTS, file_mb: Number((statSync(out).size / 1e6).toFixed(1)), per_second: rate(EVENTS, ms), ...baseline });
      rmSync(out, { force: true });
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await runtime.close();
    await database.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await run();
  printTable('export', rows);
  writeResults('export', rows);
}
