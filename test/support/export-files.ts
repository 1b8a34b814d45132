import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse } from 'csv-parse/sync';
import type { ColumnKind } from '../../services/export/columns.js';
import type { ExportFormat, SchemaDocument } from '../../services/export/schema-document.js';

export type Row = Record<string, unknown>;

/**
 * Reads an export back the way an analyst's tool would (JSON.parse, csv-parse, DuckDB), with its
 * schema document, into one comparable shape whatever the format: offsets and other bigints as
 * exact decimal text, times as epoch microseconds (text), json columns parsed, null as null.
 */
export async function readExport(path: string, format: ExportFormat): Promise<{ document: SchemaDocument; rows: Row[] }> {
  if (format === 'parquet') return readParquet(path);
  const document = JSON.parse(readFileSync(`${path}.schema.json`, 'utf8')) as SchemaDocument;
  const kinds = new Map(document.columns.map((column) => [column.name, column.type]));
  if (format === 'ndjson') {
    const lines = readFileSync(path, 'utf8').split('\n').filter((line) => line !== '');
    const rows = lines.map((line) => mapRow(JSON.parse(line) as Row, kinds, (kind, value) => (kind === 'bigint' ? String(value) : kind === 'timestamp' ? micros(value as string) : value)));
    return { document, rows };
  }
  const records = parse(readFileSync(path), { columns: true, cast: (value, context) => (value === '' && !context.quoting ? null : value) }) as Row[];
  const rows = records.map((record) =>
    mapRow(record, kinds, (kind, value) => {
      const text = value as string;
      if (kind === 'integer' || kind === 'double') return Number(text);
      if (kind === 'boolean') return text === 'true';
      if (kind === 'json') return JSON.parse(text);
      return kind === 'timestamp' ? micros(text) : text;
    }),
  );
  return { document, rows };
}

async function readParquet(path: string): Promise<{ document: SchemaDocument; rows: Row[] }> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const file = `'${path.replace(/'/g, "''")}'`;
    const [metadata] = (await connection.runAndReadAll(`SELECT decode(value) AS value FROM parquet_kv_metadata(${file}) WHERE decode(key) = 'offerledger.export'`)).getRowObjectsJS();
    const document = JSON.parse(metadata!.value as string) as SchemaDocument;
    const kinds = new Map(document.columns.map((column) => [column.name, column.type]));
    const select = document.columns.map(({ name, type }) => {
      const column = `"${name}"`;
      return type === 'timestamp' ? `epoch_us(${column}) AS ${column}` : type === 'json' ? `${column}::VARCHAR AS ${column}` : column;
    });
    const records = (await connection.runAndReadAll(`SELECT ${select.join(', ')} FROM read_parquet(${file})`)).getRowObjectsJS() as Row[];
    const rows = records.map((record) => mapRow(record, kinds, (kind, value) => (kind === 'bigint' || kind === 'timestamp' ? String(value) : kind === 'json' ? JSON.parse(value as string) : value)));
    return { document, rows };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function mapRow(record: Row, kinds: Map<string, ColumnKind>, convert: (kind: ColumnKind, value: unknown) => unknown): Row {
  return Object.fromEntries(Object.entries(record).map(([name, value]) => [name, value === null || value === undefined ? null : convert(kinds.get(name)!, value)]));
}

/** Epoch microseconds of an RFC 3339 text, as text; written independently of the exporter's own parser. */
export function micros(text: string): string {
  const fraction = /\.(\d+)Z$/.exec(text)?.[1] ?? '';
  const whole = Date.parse(text.replace(/\.\d+Z$/, 'Z'));
  return (BigInt(whole) * 1000n + BigInt(fraction.padEnd(6, '0').slice(0, 6))).toString();
}

/** Epoch microseconds of epoch milliseconds (or a Date), as text. */
export const microsOfMillis = (millis: number | Date) => (BigInt(typeof millis === 'number' ? millis : millis.getTime()) * 1000n).toString();
