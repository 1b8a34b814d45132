import type { Db, Sql } from '../../platform/db/db.js';
import type { TopicPartitionOffset } from '../../platform/events/event-log.js';
import { qualified } from '../../platform/db/identifier.js';
import { idleInTransactionAtMost } from '../../platform/db/postgres.js';
import { compareCodeUnits } from '../../platform/text/code-unit-order.js';
import { storedOffsets } from '../../platform/projection/offsets.js';
import { describedKeptSchemas, keptReplaySchemas, keptReplayTable, unfinishedReplay } from '../../platform/projection/replay-schema.js';
import { ExportInputError } from './options.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { LEDGER_COLUMN_DOCS, LEDGER_TABLES, copyLedgerTable, dropLedgerTableCopy, ledgerTableCount, ledgerTablePage, type LedgerColumnType, type LedgerTable } from '../../projections/ledger/queries.js';
import type { Cell, ColumnKind, ExportColumn } from './columns.js';
import { writeExportFile, type ExportResult } from './export-file.js';
import { silentProgress, type ExportProgress } from './progress.js';
import type { ExportFormat } from './schema-document.js';

/** The tables `--read-model` exports (the ledger's, read through its queries). */
export const READ_MODELS = ['conversions', 'postback_log'] as const;
export type ReadModelName = (typeof READ_MODELS)[number];

const KINDS: Record<LedgerColumnType, ColumnKind> = {
  text: 'text',
  integer: 'integer',
  bigint: 'bigint',
  numeric: 'decimal',
  boolean: 'boolean',
  timestamptz: 'timestamp',
};

const PAGE = 5_000;

export interface ReadModelExportRequest {
  readModel: ReadModelName;
  /** A schema a replay kept (replay_<time>): its table, as of the positions that replay reached, instead of the live one. */
  schema?: string;
  format: ExportFormat;
  out: string;
}

function readModelColumns(table: LedgerTable): ExportColumn[] {
  return table.columns.map(([name, type]) => ({ name, kind: KINDS[type], nullable: table.nullable.includes(name), doc: LEDGER_COLUMN_DOCS[name] }));
}

/**
 * Every row of a read model table into one file, the table exactly as it stood at its
 * projection's applied positions (written beside the rows), however busy the projector is
 * meanwhile. On Postgres the pages are read in one REPEATABLE READ snapshot; the embedded
 * database runs one transaction at a time, so there the table is copied in one short
 * transaction with the positions, and the copy is paged through (the service, when it runs the
 * export, goes on answering).
 */
export async function exportReadModel(db: Db, request: ReadModelExportRequest, progress: ExportProgress = silentProgress, signal?: AbortSignal): Promise<ExportResult> {
  const table = LEDGER_TABLES[request.readModel];
  if (request.schema !== undefined) return exportKeptTable(db, table, request.schema, request, progress, signal);
  if (db.engine === 'postgres') {
    let written: ExportResult | undefined;
    try {
      return await db.transaction(async (tx) => {
        await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        // Paced by the file it writes (a slow disk may take longer than the session bound between
        // pages); a read-only snapshot holds no lock a writer waits for.
        await tx.exec(idleInTransactionAtMost(0));
        const [total, positions] = await Promise.all([ledgerTableCount(tx, table.name), storedOffsets(tx, ledgerProjection.name)]);
        return (written = await writeTable(tx, table, { total, positions }, request, progress, signal));
      });
    } catch (error) {
      // Only the end of the read-only snapshot failed (its session dropped): every page had been
      // read in it and the file is complete and in place, so the export succeeded.
      if (written) return written;
      throw error;
    }
  }
  const { copy, total, positions } = await db.transaction(async (tx) => {
    const made = await copyLedgerTable(tx, table.name);
    return { copy: made, total: await ledgerTableCount(tx, table.name, made), positions: await storedOffsets(tx, ledgerProjection.name) };
  });
  try {
    return await writeTable(db, table, { total, positions, copy }, request, progress, signal);
  } finally {
    // A temporary table, gone with its session anyway: failing to drop it never fails an export whose file is in place.
    await dropLedgerTableCopy(db, copy).catch(() => {});
  }
}

/**
 * A table as a replay kept it: nothing writes a kept schema, so its pages are read as they are
 * (no snapshot, no copy), with the positions that replay rebuilt it to (none for its copy of the
 * live tables, which keeps no positions of its own).
 */
async function exportKeptTable(db: Db, table: LedgerTable, schema: string, request: ReadModelExportRequest, progress: ExportProgress, signal?: AbortSignal): Promise<ExportResult> {
  const unfinished = await unfinishedReplay(db, schema);
  if (unfinished) throw new ExportInputError('--schema', `${schema} is not a finished replay: ${unfinished}`);
  const kept = await keptReplayTable(db, schema, table.name);
  if (!kept.table) {
    const schemas = await keptReplaySchemas(db);
    const known = schemas.length === 0 ? 'no replay has kept a schema here' : `kept: ${schemas.join(', ')}`;
    throw new ExportInputError('--schema', `${schema} holds no ${table.name} table (${known})`);
  }
  const positions = kept.offsets ? await storedOffsets(db, ledgerProjection.name, schema) : [];
  const from = qualified(schema, table.name);
  // The schema's name is only the time the replay ran: the file says what it holds (an --as-of time, positions).
  const about = (await describedKeptSchemas(db)).find((kept) => kept.schema === schema)?.about ?? null;
  return writeTable(db, table, { total: await ledgerTableCount(db, table.name, from), positions, copy: from, about }, request, progress, signal);
}

/** The file of `table` (or of its `copy`) with `total` rows as of `positions`. */
async function writeTable(
  sql: Sql,
  table: LedgerTable,
  at: { total: number; positions: TopicPartitionOffset[]; copy?: string; about?: string | null },
  request: ReadModelExportRequest,
  progress: ExportProgress,
  signal: AbortSignal | undefined,
): Promise<ExportResult> {
  const columns = readModelColumns(table);
  const sorted = [...at.positions].sort((a, b) => compareCodeUnits(a.topic, b.topic) || a.partition - b.partition);
  return writeExportFile(
    { format: request.format, out: request.out, columns, progress, what: `${table.name} → ${request.format}`, total: at.total, signal },
    async (write) => {
      let after: unknown[] | undefined;
      for (;;) {
        const page = await ledgerTablePage(sql, table.name, after, PAGE, at.copy);
        if (page.length === 0) break;
        await write(page.map((row): Cell[] => columns.map((column) => row[column.name] ?? null)), page.length);
        if (page.length < PAGE) break;
        const last = page[page.length - 1]!;
        after = table.orderBy.map((name) => last[name]);
      }
    },
    () => ({
      kind: 'read_model',
      read_model: table.name,
      description: table.description,
      projection: ledgerProjection.name,
      ...(request.schema !== undefined ? { replay_schema: request.schema, replay_about: at.about ?? null } : {}),
      positions: sorted,
      order_by: [...table.orderBy],
    }),
  );
}
