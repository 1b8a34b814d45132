import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExportColumn } from '../../services/export/columns.js';
import { CONVENTIONS, documentColumns } from '../../services/export/schema-document.js';
import { spillPath } from '../../services/export/writers/file.js';
import { parquetWriter } from '../../services/export/writers/parquet.js';

const dir = mkdtempSync(join(tmpdir(), 'export-spill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const COLUMNS: ExportColumn[] = [
  { name: 'row', kind: 'bigint', nullable: false },
  { name: 'text', kind: 'text', nullable: false },
];
const BATCHES = 70;
const ROWS_PER_BATCH = 10_000;
/** 192 characters a row, 70 × 10,000 rows: about 135 MB held, past a 96 MB limit. */
const text = (row: number) => createHash('md5').update(String(row)).digest('hex').repeat(6);

describe('a Parquet export past its memory limit', () => {
  it('spills the rows it holds to a folder beside the file, writes every row in order, and removes the folder', async () => {
    const out = join(dir, 'wide.parquet');
    const writer = await parquetWriter(out, COLUMNS, '96MB');
    let spilled = false;
    for (let batch = 0; batch < BATCHES; batch += 1) {
      await writer.write(Array.from({ length: ROWS_PER_BATCH }, (_, index) => [String(batch * ROWS_PER_BATCH + index), text(batch * ROWS_PER_BATCH + index)]));
      spilled ||= existsSync(spillPath(out));
    }
    expect(spilled).toBe(true);
    const rows = BATCHES * ROWS_PER_BATCH;
    const source = { kind: 'read_model' as const, read_model: 'wide', description: 'spill test', projection: 'none', positions: [], order_by: ['row'] };
    await writer.finish({ about: 'offer-ledger export, version 1', file: 'wide.parquet', format: 'parquet', rows, exported_at: new Date().toISOString(), source, columns: documentColumns(COLUMNS), conventions: CONVENTIONS });
    expect(existsSync(spillPath(out))).toBe(false);

    // Read back by DuckDB itself: every row, each text the md5 of its number repeated, in row order.
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const [summary] = (
        await connection.runAndReadAll(
          `SELECT count(*)::BIGINT AS rows, bool_and(text = repeat(md5(row::VARCHAR), 6)) AS texts,
                  bool_and(row = position - 1) AS ordered
           FROM (SELECT *, row_number() OVER () AS position FROM read_parquet('${out}'))`,
        )
      ).getRowObjectsJS();
      expect(summary).toEqual({ rows: BigInt(rows), texts: true, ordered: true });
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  }, 120_000);
});
