import { existsSync, readFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvents, newEvent } from '../../commands/append.js';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { loadSchemaCatalog } from '../../platform/events/schema-catalog.js';
import { storedOffsets } from '../../platform/projection/offsets.js';
import { ledgerProjection } from '../../projections/ledger/projection.js';
import { LEDGER_TABLES } from '../../projections/ledger/queries.js';
import { offerUpsertedEvent } from '../../commands/offers/upsert.js';
import { EventType } from '../../schemas/generated/events.js';
import { exportEvents } from '../../services/export/export-events.js';
import { exportReadModel } from '../../services/export/export-read-model.js';
import { parseExportFlags, type ExportFlags } from '../../services/export/options.js';
import { REDACTED } from '../../services/export/redacted-fields.js';
import { FORMATS } from '../../services/export/schema-document.js';
import { createTestRuntime, testEnvironment, type TestRuntime } from '../support/app.js';
import { catalogEvents } from '../support/catalog-events.js';
import { ownLines, runCli } from '../support/cli.js';
import { microsOfMillis, readExport, type Row } from '../support/export-files.js';
import { postbackEvents } from '../support/postback-events.js';
import { readTopic } from '../support/read-topic.js';
import { replayProjection } from '../support/replay.js';

const EVENTS = 10_000;
const CATALOG_EVENTS = 2_000;
const LOG_COLUMNS = ['log_topic', 'log_partition', 'log_offset', 'log_timestamp', 'log_key', 'event_type', 'schema_id'];

/** Fields of this build's schemas that are timestamp-millis, read from the .avsc files themselves. */
const timestampFields = new Set(
  [...loadSchemaCatalog().values()].flatMap((schema) =>
    schema.schema.fields
      .filter((field) => JSON.stringify(field.type).includes('"logicalType":"timestamp-millis"'))
      .map((field) => `${schema.schema.name}.${field.name}`),
  ),
);

/** What an export row must hold for a decoded event, in readExport's shape. */
function expectedRow(event: LoggedEvent, columns: string[]): Row {
  const type = event.type.slice(event.type.lastIndexOf('.') + 1);
  const row: Row = {
    log_topic: event.topic,
    log_partition: event.partition,
    log_offset: event.offset,
    log_timestamp: microsOfMillis(event.timestamp),
    log_key: event.key,
    event_type: type,
    schema_id: event.schemaId,
  };
  for (const name of columns.slice(LOG_COLUMNS.length)) {
    const value = event.value[name] ?? null;
    row[name] = value !== null && timestampFields.has(`${type}.${name}`) ? microsOfMillis(value as number) : value;
  }
  return row;
}

const positionOf = (row: { log_partition?: unknown; log_offset?: unknown; partition?: unknown; offset?: unknown }) =>
  `${String(row.log_partition ?? row.partition)}:${String(row.log_offset ?? row.offset)}`;

/** Rows equal, field by field, to the decoded events; each partition in offset order. */
function expectRoundTrip(rows: Row[], events: LoggedEvent[], columns: string[]) {
  expect(rows).toHaveLength(events.length);
  for (const row of rows) expect(Object.keys(row)).toEqual(columns);
  const byPosition = new Map(rows.map((row) => [positionOf(row), row]));
  expect(byPosition.size).toBe(rows.length);
  for (const event of events) expect(byPosition.get(positionOf(event)), positionOf(event)).toEqual(expectedRow(event, columns));
  const partitions = new Set(rows.map((row) => row.log_partition));
  for (const partition of partitions) {
    const offsets = rows.filter((row) => row.log_partition === partition).map((row) => BigInt(row.log_offset as string));
    expect(offsets).toEqual([...offsets].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

for (const backend of ['kafka', 'sql'] as const) describeExports(backend);

function describeExports(backend: 'kafka' | 'sql') {
  describe(`export from the ${backend} log`, () => {
    let t: TestRuntime;
    let env: Record<string, string>;
    let postbacks: LoggedEvent[];
    let catalog: LoggedEvent[];
    const dir = mkdtempSync(join(tmpdir(), `export-${backend}-`));
    const exportFlags = (flags: ExportFlags) => {
      const parsed = parseExportFlags(flags);
      if (parsed.kind !== 'events') throw new Error('not an events export');
      return exportEvents(t.runtime.eventLog, { ...parsed.request, topicPrefix: t.topicPrefix });
    };

    beforeAll(async () => {
      t = await createTestRuntime({ eventLog: backend });
      env = testEnvironment(t.database, t.topicPrefix, { eventLog: backend });
      const seeded = postbackEvents(EVENTS);
      for (let start = 0; start < seeded.length; start += 1_000) await appendEvents(t.runtime, 'postbacks', seeded.slice(start, start + 1_000));
      await appendEvents(t.runtime, 'catalog', catalogEvents(CATALOG_EVENTS));
      postbacks = await readTopic(t.runtime.eventLog, 'postbacks', (events) => events.length >= EVENTS, 120_000);
      catalog = await readTopic(t.runtime.eventLog, 'catalog', (events) => events.length >= CATALOG_EVENTS);
      // The seed itself went through the log unchanged.
      expect(new Set(postbacks.map((event) => event.value.correlation_id))).toEqual(new Set(seeded.map((event) => event.value.correlation_id)));
    }, 240_000);
    afterAll(async () => {
      rmSync(dir, { recursive: true, force: true });
      await t?.close();
    });

    it.each(FORMATS)('%s: 10,000 postbacks through npm run export, every field equal to the decoded event', async (format) => {
      const out = join(dir, `postbacks.${format}`);
      const result = await runCli('services/export/cli.ts', ['--topic', 'postbacks', '--format', format, '--out', out], env, 180_000);
      expect(result.status, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ rows: EVENTS, format, files: format === 'parquet' ? [out] : [out, `${out}.schema.json`] });
      // Progress on stderr (without a terminal, a line every few seconds and the last one at the end).
      expect(ownLines(result.stderr).at(-1)).toMatch(new RegExp(`^postbacks → ${format} \\[█+\\] 100% \\| ${EVENTS}/${EVENTS} \\| \\d+/s \\| ETA `));
      const { document, rows } = await readExport(out, format);
      const columns = [...LOG_COLUMNS, ...loadSchemaCatalog().get(EventType.PostbackReceived)!.schema.fields.map((field) => field.name)];
      expect(document.columns.map((column) => column.name)).toEqual(columns);
      expect(document).toMatchObject({ format, rows: EVENTS, source: { kind: 'events', topic: 'postbacks', from: null, to: null, type: null } });
      expect(document.source.kind === 'events' && document.source.avro).toEqual([
        { type: EventType.PostbackReceived, subject: `${t.topicPrefix}postbacks-${EventType.PostbackReceived}`, schema: loadSchemaCatalog().get(EventType.PostbackReceived)!.schema },
      ]);
      expectRoundTrip(rows, postbacks, columns);
    });

    it.each(FORMATS)('%s: a topic of several event types, one column per field, event_type telling them apart', async (format) => {
      const out = join(dir, `catalog.${format}`);
      expect(await exportFlags({ topic: 'catalog', out: `${out}`, format })).toMatchObject({ rows: CATALOG_EVENTS });
      const { document, rows } = await readExport(out, format);
      const columns = document.columns.map((column) => column.name);
      expect(columns).toEqual([...LOG_COLUMNS, 'event_id', 'entry_id', 'name', 'amount', 'currency', 'tags', 'recorded_at', 'reason', 'removed_at']);
      expect(document.columns.find((column) => column.name === 'reason')).toMatchObject({ type: 'text', nullable: true, event_types: ['CatalogEntryRemoved'] });
      expectRoundTrip(rows, catalog, columns);
    });

    describe('secrets', () => {
      const partner_id = '01a20000-0000-7000-8000-00000000c0de';
      const withCredentials = offerUpsertedEvent(
        { partner_id, kind: 'remote', status: 'active', internal: { remote_endpoint: 'https://partner.example/offers', credentials: { api_key: 'SECRET-KEY-1', token: 'SECRET-TOKEN-2' }, settlement_contract: 'contract-9' } },
        [],
        new Date(Date.UTC(2026, 10, 2)),
      );
      const without = offerUpsertedEvent({ partner_id, kind: 'local', status: 'paused' }, [], new Date(Date.UTC(2026, 10, 3)));
      beforeAll(async () => {
        await appendEvents(t.runtime, 'offers', [withCredentials, without].map((value) => newEvent(EventType.OfferUpserted, value.offer_id, value)));
        await readTopic(t.runtime.eventLog, 'offers', (events) => events.length >= 2);
      });

      it.each(FORMATS)('%s: offers\' internal credentials are written redacted, their names kept; every other field as logged', async (format) => {
        const out = join(dir, `offers.${format}`);
        expect(await exportFlags({ topic: 'offers', out, format })).toMatchObject({ rows: 2 });
        const file = readFileSync(out);
        expect(file.includes('SECRET-KEY-1')).toBe(false);
        expect(file.includes('SECRET-TOKEN-2')).toBe(false);
        const { document, rows } = await readExport(out, format);
        const rowOf = (offerId: string) => rows.find((row) => row.offer_id === offerId)!;
        const internalOf = (offerId: string) => {
          const cell = rowOf(offerId).internal;
          return typeof cell === 'string' ? JSON.parse(cell) : cell;
        };
        expect(internalOf(withCredentials.offer_id)).toEqual({ ...withCredentials.internal, credentials: { api_key: REDACTED, token: REDACTED } });
        expect(internalOf(without.offer_id)).toBeNull();
        expect(rowOf(withCredentials.offer_id)).toMatchObject({ partner_id, kind: 'remote', status: 'active', upstream_offer_id: null });
        expect(document.columns.find((column) => column.name === 'internal')?.doc).toContain(`written as "${REDACTED}"`);
      });
    });

    it('--type: only that event type, only its fields', async () => {
      const out = join(dir, 'removed.csv');
      await exportFlags({ topic: 'catalog', type: 'CatalogEntryRemoved', out });
      const { document, rows } = await readExport(out, 'csv');
      const columns = document.columns.map((column) => column.name);
      expect(columns).toEqual([...LOG_COLUMNS, 'event_id', 'entry_id', 'reason', 'removed_at']);
      expectRoundTrip(rows, catalog.filter((event) => event.type === EventType.CatalogEntryRemoved), columns);
    });

    it('--from a time and --to positions: the events logged at or after the time and below the positions', async () => {
      const times = [...new Set(postbacks.map((event) => event.timestamp.getTime()))].sort((a, b) => a - b);
      const from = new Date(times[Math.floor(times.length / 3)]!);
      const ends = new Map<number, bigint>();
      for (const event of postbacks) ends.set(event.partition, (ends.get(event.partition) ?? 0n) + 1n);
      const to = [...ends].map(([partition, count]) => `postbacks:${partition}:${count - count / 4n}`).join(',');
      const out = join(dir, 'window.ndjson');
      await exportFlags({ topic: 'postbacks', from: from.toISOString(), to, out });
      const { document, rows } = await readExport(out, 'ndjson');
      const below = new Map([...ends].map(([partition, count]) => [partition, count - count / 4n]));
      const expected = postbacks.filter((event) => event.timestamp >= from && BigInt(event.offset) < below.get(event.partition)!);
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(EVENTS);
      expectRoundTrip(rows, expected, document.columns.map((column) => column.name));
      expect(document.source).toMatchObject({ from: from.toISOString(), to, time_filter: { from: from.toISOString(), to: null } });
    });

    it('invalid flags and bounds the log cannot satisfy exit 2 naming the flag, writing nothing', async () => {
      const out = join(dir, 'refused.csv');
      const attempts: [string[], RegExp][] = [
        [['--topic', 'postbacks', '--from', 'yesterday', '--out', out], /^error: --from: "yesterday" is neither an RFC 3339 time/],
        [['--topic', 'postbacks', '--to', 'postbacks:99:0', '--out', out], /^error: --to: topic postbacks has no partition 99/],
        [['--read-model', 'ledger', '--out', out], /^error: --read-model: unknown read model "ledger": one of conversions, postback_log/],
      ];
      for (const [args, message] of attempts) {
        const result = await runCli('services/export/cli.ts', args, env);
        expect(result.status, result.stderr).toBe(2);
        expect(ownLines(result.stderr)[0]).toMatch(message);
        expect(result.stderr).toContain('npm run export -- --help');
      }
      expect(readdirSync(dir).filter((name) => name.startsWith('refused'))).toEqual([]);
    });

    describe('read models', () => {
      beforeAll(async () => {
        await replayProjection(t.runtime.db, t.runtime.eventLog, ledgerProjection);
      }, 180_000);

      /** The table as Postgres holds it, in readExport's shape (exact text for int8/numeric, microseconds for times). */
      async function tableRows(name: 'conversions' | 'postback_log'): Promise<Row[]> {
        const { rows: columns } = await t.runtime.db.query<{ column_name: string; data_type: string }>(
          `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
          [name],
        );
        const select = columns.map(({ column_name: column, data_type: type }) =>
          type === 'timestamp with time zone' ? `(extract(epoch FROM ${column}) * 1000000)::bigint::text AS ${column}` : type === 'bigint' || type === 'numeric' ? `${column}::text AS ${column}` : column,
        );
        return (await t.runtime.db.query<Row>(`SELECT ${select.join(', ')} FROM ${name}`)).rows;
      }

      it('each ledger table declares every column of its migration, in order, with its type and nullability', async () => {
        for (const table of Object.values(LEDGER_TABLES)) {
          const { rows } = await t.runtime.db.query<{ column_name: string; data_type: string; is_nullable: string }>(
            `SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
            [table.name],
          );
          const sqlType = { text: 'text', integer: 'integer', bigint: 'bigint', numeric: 'numeric', boolean: 'boolean', timestamptz: 'timestamp with time zone' };
          expect(table.columns.map(([name, type]) => [name, sqlType[type], table.nullable.includes(name) ? 'YES' : 'NO'])).toEqual(
            rows.map((row) => [row.column_name, row.data_type, row.is_nullable]),
          );
        }
      });

      it('conversions through npm run export: every row and column, hash chain included, as of the ledger\'s positions', async () => {
        const out = join(dir, 'conversions.parquet');
        const result = await runCli('services/export/cli.ts', ['--read-model', 'conversions', '--out', out], env, 120_000);
        expect(result.status, result.stderr).toBe(0);
        const { document, rows } = await readExport(out, 'parquet');
        const expected = new Map((await tableRows('conversions')).map((row) => [row.correlation_id, row]));
        expect(expected.size).toBeGreaterThan(EVENTS / 2);
        expect(rows).toHaveLength(expected.size);
        for (const row of rows) expect(row).toEqual(expected.get(row.correlation_id));
        expect(document.columns.map((column) => column.name)).toContain('hash');
        // Every column says what it holds, as a topic export's columns do.
        expect(document.columns.filter((column) => !column.doc).map((column) => column.name)).toEqual([]);
        const positions = (await storedOffsets(t.runtime.db, 'ledger')).sort((a, b) => a.partition - b.partition);
        expect(document.source).toEqual({
          kind: 'read_model',
          read_model: 'conversions',
          description: LEDGER_TABLES.conversions.description,
          projection: 'ledger',
          positions,
          order_by: ['partner_id', 'identity_key'],
        });
        expect(positions.reduce((sum, position) => sum + Number(position.offset), 0)).toBe(EVENTS);
      });

      it.each(FORMATS)('postback_log as %s: every decision with prev_hash and hash, in log order', async (format) => {
        const out = join(dir, `postback_log.${format}`);
        expect(await exportReadModel(t.runtime.db, { readModel: 'postback_log', format, out })).toMatchObject({ rows: EVENTS });
        const { document, rows } = await readExport(out, format);
        expect(document.columns.filter((column) => !column.doc).map((column) => column.name)).toEqual([]);
        const expected = new Map((await tableRows('postback_log')).map((row) => [row.correlation_id, row]));
        expect(rows).toHaveLength(expected.size);
        for (const row of rows) expect(row).toEqual(expected.get(row.correlation_id));
        const order = rows.map((row) => [Number(row.log_partition), BigInt(row.log_offset as string)] as const);
        expect(order).toEqual([...order].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)));
        expect(new Set(rows.map((row) => row.decision))).toEqual(new Set(['accepted', 'unmapped', 'already_recorded', 'identity_conflict']));
        expect(existsSync(`${out}.partial`)).toBe(false);
        if (format !== 'parquet') {
          // Times written as a topic export writes them (milliseconds), so the two join on the text.
          const text = readFileSync(out, 'utf8');
          expect(text).not.toMatch(/T\d{2}:\d{2}:\d{2}\.\d{6}Z/);
          for (const event of postbacks.slice(0, 50)) expect(text).toContain(new Date(event.value.received_at as number).toISOString());
        }
      });
    });
  });
}
