import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import type { Cell, ExportColumn } from '../../services/export/columns.js';
import { CONVENTIONS, documentColumns, type SchemaDocument } from '../../services/export/schema-document.js';
import { utf8Batch } from '../../services/export/writers/utf8-batch.js';
import { openWriter } from '../../services/export/writers/writer.js';

const dir = mkdtempSync(join(tmpdir(), 'export-writers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const columns: ExportColumn[] = [
  { name: 'text', kind: 'text', nullable: true },
  { name: 'big', kind: 'bigint', nullable: false },
  { name: 'n', kind: 'integer', nullable: true },
  { name: 'flag', kind: 'boolean', nullable: true },
  { name: 'at', kind: 'timestamp', nullable: true },
  { name: 'money', kind: 'decimal', nullable: true },
  { name: 'nested', kind: 'json', nullable: true },
];
const rows: Cell[][] = [
  ['', '9007199254740993', 0, false, '2026-11-01T00:00:00.123456Z', '12.50', { a: [1, 'two'], b: null }],
  [null, '-1', null, null, null, null, null],
  ['comma, "quote"\nnewline — ü', '0', -5, true, '1970-01-01T00:00:00.000Z', '0', 'plain'],
];
const document = (format: SchemaDocument['format']): SchemaDocument => ({
  about: 'offer-ledger export, version 1',
  file: 'f',
  format,
  rows: rows.length,
  exported_at: '2026-11-01T00:00:00.000Z',
  source: { kind: 'read_model', read_model: 'conversions', description: 'd', projection: 'ledger', positions: [], order_by: [] },
  columns: documentColumns(columns),
  conventions: CONVENTIONS,
});

async function written(format: SchemaDocument['format'], name: string) {
  const path = join(dir, name);
  const writer = await openWriter(format, path, columns);
  await writer.write(rows.slice(0, 1));
  await writer.write(rows.slice(1));
  expect(existsSync(path)).toBe(false);
  return { path, files: await writer.finish(document(format)) };
}

describe('export writers', () => {
  it('ndjson: one object per row, bigints as exact numbers, json nested, schema beside it', async () => {
    const { path, files } = await written('ndjson', 'rows.ndjson');
    expect(files).toEqual([path, `${path}.schema.json`]);
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toContain('"big":9007199254740993,');
    expect(JSON.parse(lines[0]!)).toMatchObject({ text: '', n: 0, flag: false, nested: { a: [1, 'two'], b: null } });
    expect(JSON.parse(lines[1]!)).toEqual({ text: null, big: -1, n: null, flag: null, at: null, money: null, nested: null });
    expect(JSON.parse(lines[2]!).text).toBe(rows[2]![0]);
    expect(JSON.parse(readFileSync(`${path}.schema.json`, 'utf8'))).toEqual(document('ndjson'));
  });

  it('ndjson: a column named __proto__ is a plain key, not the object\'s prototype', async () => {
    const path = join(dir, 'proto.ndjson');
    const writer = await openWriter('ndjson', path, [{ name: '__proto__', kind: 'json', nullable: true }, { name: 'n', kind: 'integer', nullable: false }]);
    await writer.write([[{ polluted: true }, 1]]);
    await writer.finish(document('ndjson'));
    expect(readFileSync(path, 'utf8')).toBe('{"__proto__":{"polluted":true},"n":1}\n');
  });

  it('csv: header, null unquoted empty and "" an empty string, json as text', async () => {
    const { path } = await written('csv', 'rows.csv');
    const records = parse(readFileSync(path), { cast: (value, context) => (value === '' && !context.quoting ? null : value) }) as (string | null)[][];
    expect(records[0]).toEqual(columns.map((column) => column.name));
    expect(records[1]).toEqual(['', '9007199254740993', '0', 'false', '2026-11-01T00:00:00.123456Z', '12.50', '{"a":[1,"two"],"b":null}']);
    expect(records[2]).toEqual([null, '-1', null, null, null, null, null]);
    expect(records[3]).toEqual([rows[2]![0], '0', '-5', 'true', '1970-01-01T00:00:00.000Z', '0', '"plain"']);
  });

  it('parquet: typed columns and the schema document in its metadata', async () => {
    const { path, files } = await written('parquet', 'rows.parquet');
    expect(files).toEqual([path]);
    const connection = await (await DuckDBInstance.create(':memory:')).connect();
    const read = (await connection.runAndReadAll(`SELECT text, big, n, flag, epoch_us("at") AS "at", money, nested::VARCHAR AS nested FROM read_parquet('${path}')`)).getRowObjectsJS();
    expect(read).toEqual([
      { text: '', big: 9007199254740993n, n: 0, flag: false, at: BigInt(Date.UTC(2026, 10, 1)) * 1000n + 123_456n, money: '12.50', nested: '{"a":[1,"two"],"b":null}' },
      { text: null, big: -1n, n: null, flag: null, at: null, money: null, nested: null },
      { text: rows[2]![0], big: 0n, n: -5, flag: true, at: 0n, money: '0', nested: '"plain"' },
    ]);
    const metadata = (await connection.runAndReadAll(`SELECT decode(key) AS key, decode(value) AS value FROM parquet_kv_metadata('${path}')`)).getRowObjectsJS();
    expect(metadata).toEqual([{ key: 'offerledger.export', value: JSON.stringify(document('parquet')) }]);
    connection.closeSync();
  });

  it('an aborted export leaves no file', async () => {
    for (const format of ['ndjson', 'csv', 'parquet'] as const) {
      const path = join(dir, `aborted.${format}`);
      const writer = await openWriter(format, path, columns);
      await writer.write(rows);
      await writer.abort();
      expect(existsSync(path) || existsSync(`${path}.partial`) || existsSync(`${path}.schema.json`)).toBe(false);
    }
  });

  it("a schema document that cannot be written leaves an earlier export's file and document as they were", async () => {
    for (const format of ['ndjson', 'csv'] as const) {
      const path = join(dir, `earlier.${format}`);
      writeFileSync(path, 'earlier rows\n');
      writeFileSync(`${path}.schema.json`, '{"earlier": true}\n');
      // Where the new document is written first: a folder, so writing it fails as a full disk would.
      mkdirSync(`${path}.schema.json.partial`);
      const writer = await openWriter(format, path, columns);
      await writer.write(rows);
      await expect(writer.finish(document(format))).rejects.toThrow();
      await writer.abort();
      expect(readFileSync(path, 'utf8')).toBe('earlier rows\n');
      expect(readFileSync(`${path}.schema.json`, 'utf8')).toBe('{"earlier": true}\n');
      expect(existsSync(`${path}.partial`)).toBe(false);
    }
  });
});

describe('utf8Batch', () => {
  it('hands over exactly the UTF-8 bytes added since the last take, growing past its first buffer', () => {
    const batch = utf8Batch();
    const lines = Array.from({ length: 3_000 }, (_, index) => `${index} ${'ü€😀'.repeat(500)}\n`);
    for (const line of lines) batch.add(line);
    const first = batch.take();
    expect(first.toString('utf8')).toBe(lines.join(''));
    expect(first.length).toBeGreaterThan(4 * 1024 * 1024);
    batch.add('next\n');
    expect(batch.take().toString('utf8')).toBe('next\n');
    // What was handed over is a copy: later batches never change it.
    expect(first.subarray(0, 2).toString('utf8')).toBe('0 ');
    expect(batch.take()).toHaveLength(0);
  });
});
