import { rmSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { DuckDBInstance, timestampTZValue, type DuckDBAppender } from '@duckdb/node-api';
import { PARQUET_TYPES, isoToMicros, type Cell, type ColumnKind, type ExportColumn } from '../columns.js';
import { partialPath, spillPath } from './file.js';
import type { RowWriter } from './writer.js';

type Append = (appender: DuckDBAppender, cell: Cell) => void;

const APPEND: Record<ColumnKind, Append> = {
  text: (appender, cell) => appender.appendVarchar(cell as string),
  decimal: (appender, cell) => appender.appendVarchar(cell as string),
  integer: (appender, cell) => appender.appendInteger(cell as number),
  bigint: (appender, cell) => appender.appendBigInt(BigInt(cell as string)),
  double: (appender, cell) => appender.appendDouble(cell as number),
  boolean: (appender, cell) => appender.appendBoolean(cell as boolean),
  timestamp: (appender, cell) => appender.appendTimestampTZ(timestampTZValue(isoToMicros(cell as string))),
  json: (appender, cell) => appender.appendVarchar(JSON.stringify(cell)),
};

/**
 * What DuckDB may hold in memory for one export (about 300,000 logged postbacks); rows past it
 * are spilled to a folder beside the file. An export may run inside the embedded service, and a
 * million postbacks held in memory were 1.6 GB of it.
 */
const MEMORY_LIMIT = '512MB';
/**
 * Rows per Parquet row group. The COPY buffers whole row groups; at DuckDB's default (122,880)
 * a group of wide rows asked for more than a memory limit leaves (an out-of-memory error at
 * 256 MB with 800-byte rows), while 32,768 measured the same speed and file size.
 */
const ROW_GROUP_ROWS = 32_768;

const identifier = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * Parquet written by DuckDB: rows go through its appender into an in-memory table typed by the
 * columns (NOT NULL where the schema document promises a value), then one COPY writes the file
 * (zstd) with the schema document and, for events, the Avro schemas and subjects as key-value
 * metadata: `offerledger.export`, `avro.schema`, `avro.subjects`. (Handing DuckDB CSV chunks to
 * parse on its own threads measured no faster on two cores, and needs temporary files.) Past
 * `memoryLimit` the table spills to `FILE.partial.spill`, removed with the writer.
 */
export async function parquetWriter(path: string, columns: readonly ExportColumn[], memoryLimit = MEMORY_LIMIT): Promise<RowWriter> {
  const spill = spillPath(path);
  const instance = await DuckDBInstance.create(':memory:', { memory_limit: memoryLimit, temp_directory: spill });
  const connection = await instance.connect();
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    connection.closeSync();
    instance.closeSync();
    rmSync(spill, { recursive: true, force: true });
  };
  let appender: DuckDBAppender;
  try {
    const definitions = columns.map((column) => `${identifier(column.name)} ${PARQUET_TYPES[column.kind]}${column.nullable ? '' : ' NOT NULL'}`);
    await connection.run(`CREATE TABLE export (${definitions.join(', ')})`);
    appender = await connection.createAppender('export');
  } catch (error) {
    close();
    throw error;
  }
  const append = columns.map((column) => APPEND[column.kind]);
  return {
    async write(rows) {
      for (const row of rows) {
        for (let index = 0; index < append.length; index += 1) {
          const cell = row[index];
          if (cell === null || cell === undefined) appender.appendNull();
          else append[index]!(appender, cell);
        }
        appender.endRow();
      }
    },
    async finish(document, signal) {
      try {
        appender.closeSync();
        const metadata: Record<string, string> = { 'offerledger.export': JSON.stringify(document) };
        if (document.source.kind === 'events') {
          const { avro } = document.source;
          metadata['avro.schema'] = JSON.stringify(avro.length === 1 ? avro[0]!.schema : avro.map((entry) => entry.schema));
          metadata['avro.subjects'] = avro.map((entry) => entry.subject).join(',');
        }
        const pairs = Object.entries(metadata).map(([key, value]) => `${identifier(key)}: ${literal(value)}`);
        await connection.run(`COPY export TO ${literal(partialPath(path))} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS}, KV_METADATA {${pairs.join(', ')}})`);
      } finally {
        close();
      }
      // Checked in the same step as the move starts: an abort after it cannot undo the move.
      signal?.throwIfAborted();
      await rename(partialPath(path), path);
      return [path];
    },
    async abort() {
      close();
      await rm(partialPath(path), { force: true });
    },
  };
}
