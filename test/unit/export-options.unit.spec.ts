import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EventType } from '../../schemas/generated/events.js';
import { ExportInputError, parseExportFlags, type ExportFlags } from '../../services/export/options.js';

const dir = mkdtempSync(join(tmpdir(), 'export-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const out = (name: string) => join(dir, name);
writeFileSync(out('plain.csv'), '');

function failure(flags: ExportFlags): ExportInputError {
  try {
    parseExportFlags(flags);
  } catch (error) {
    if (error instanceof ExportInputError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(flags)}`);
}

describe('export flags', () => {
  it('refuses a --to time more than a minute ahead of the clock: the file would end where the log ends now, under a --to saying otherwise', () => {
    const now = new Date('2026-11-20T10:00:00Z');
    const flags = { topic: 'postbacks', out: out('november.csv') };
    expect(() => parseExportFlags({ ...flags, to: '2026-12-01T00:00:00Z' }, now)).toThrow(
      new ExportInputError('--to', '2026-12-01T00:00:00Z is in the future (now is 2026-11-20T10:00:00.000Z): the file would end where the log ends now; export once that time has passed, or leave --to out for everything logged so far'),
    );
    expect(() => parseExportFlags({ ...flags, from: '2026-11-01T00:00:00Z', to: '2026-11-20T10:01:01Z' }, now)).toThrow(ExportInputError);
    // Another machine's clock a little ahead, and positions (bounded by the log itself), are taken.
    expect(parseExportFlags({ ...flags, to: '2026-11-20T10:01:00Z' }, now)).toMatchObject({ request: { to: { time: new Date('2026-11-20T10:01:00Z') } } });
    expect(parseExportFlags({ ...flags, from: '2026-12-01T00:00:00Z', to: 'postbacks:0:5' }, now)).toMatchObject({ kind: 'events' });
  });

  it('events: times and positions become bounds, the type its full name, the format the extension', () => {
    const parsed = parseExportFlags({ topic: 'postbacks', from: '2026-11-01T00:00:00+01:00', to: 'postbacks:0:15,postbacks:3:7', type: 'PostbackReceived', out: out('p.jsonl') });
    expect(parsed).toEqual({
      kind: 'events',
      request: {
        topic: 'postbacks',
        from: { time: new Date('2026-10-31T23:00:00Z') },
        to: { positions: [{ topic: 'postbacks', partition: 0, offset: '15' }, { topic: 'postbacks', partition: 3, offset: '7' }] },
        fromText: '2026-11-01T00:00:00+01:00',
        toText: 'postbacks:0:15,postbacks:3:7',
        type: EventType.PostbackReceived,
        format: 'ndjson',
        out: out('p.jsonl'),
      },
    });
    expect(parseExportFlags({ topic: 'catalog', format: 'parquet', out: out('any.bin') })).toMatchObject({ kind: 'events', request: { format: 'parquet', from: undefined, type: undefined } });
  });

  it('read models: the table, no log bounds', () => {
    expect(parseExportFlags({ readModel: 'conversions', out: out('c.csv') })).toEqual({ kind: 'read_model', request: { readModel: 'conversions', format: 'csv', out: out('c.csv') } });
  });

  it.each([
    [{ out: out('x.csv') }, '--topic', /--topic <accounts\|.*--read-model <conversions\|postback_log>/],
    [{ topic: 'postbacks', readModel: 'conversions', out: out('x.csv') }, '--read-model', /not both/],
    [{ topic: 'nope', out: out('x.csv') }, '--topic', /unknown topic "nope": one of accounts, .*postbacks/],
    [{ readModel: 'offers', out: out('x.csv') }, '--read-model', /one of conversions, postback_log/],
    [{ readModel: 'conversions', from: '2026-11-01T00:00:00Z', out: out('x.csv') }, '--from', /--topic exports only/],
    [{ topic: 'postbacks' }, '--out', /missing/],
    [{ topic: 'postbacks', out: join(dir, 'missing', 'x.csv') }, '--out', /does not exist/],
    [{ topic: 'postbacks', out: dir }, '--out', /is a folder/],
    [{ topic: 'postbacks', out: join(out('plain.csv'), 'x.csv') }, '--out', /plain\.csv is a file, not a folder/],
    [{ topic: 'postbacks', out: out('x.txt') }, '--format', /--format ndjson\|csv\|parquet/],
    [{ topic: 'postbacks', format: 'xlsx', out: out('x.csv') }, '--format', /unknown format "xlsx"/],
    [{ topic: 'postbacks', format: 'csv', out: out('x.parquet') }, '--format', /csv, but .*x\.parquet is named for parquet: give --format parquet, or end --out in \.csv$/],
    [{ topic: 'postbacks', format: 'parquet', out: out('x.JSONL') }, '--format', /is named for ndjson: give --format ndjson, or end --out in \.parquet$/],
    [{ topic: 'postbacks', from: 'yesterday', out: out('x.csv') }, '--from', /neither an RFC 3339 time .* nor a log position \(postbacks:0:1500/],
    [{ topic: 'postbacks', from: '2026-11-01', out: out('x.csv') }, '--from', /neither an RFC 3339 time/],
    [{ topic: 'postbacks', to: '2026-13-01T00:00:00Z', out: out('x.csv') }, '--to', /not a valid time/],
    [{ topic: 'postbacks', to: '2026-02-30T00:00:00Z', out: out('x.csv') }, '--to', /not a valid time: give an RFC 3339 time with its offset/],
    [{ topic: 'postbacks', from: '2026-11-01T24:00:00Z', out: out('x.csv') }, '--from', /not a valid time/],
    [{ topic: 'postbacks', from: '2026-11-01T10:00', out: out('x.csv') }, '--from', /not a valid time: give an RFC 3339 time with its offset/],
    [{ topic: 'postbacks', from: ' 2026-11-01T00:00:00Z', out: out('x.csv') }, '--from', /^--from: " 2026-11-01T00:00:00Z" is not a valid time: .*nothing around it/],
    [{ topic: 'postbacks', to: '2026-11-01T00:00:00Z\n', out: out('x.csv') }, '--to', /^--to: "2026-11-01T00:00:00Z\\n" is not a valid time/],
    [{ topic: 'postbacks', from: 'postbacks:0:9,postbacks:1:3', to: 'postbacks:1:2', out: out('x.csv') }, '--to', /postbacks:1:2 is before --from postbacks:1:3/],
    [{ topic: 'postbacks', to: 'clicks:0:5', out: out('x.csv') }, '--to', /position of topic clicks, not of the exported topic postbacks/],
    [{ topic: 'postbacks', to: 'postbacks:0:-5', out: out('x.csv') }, '--to', /neither/],
    [{ topic: 'postbacks', from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z', out: out('x.csv') }, '--to', /before --from/],
    [{ topic: 'postbacks', type: 'LinkClicked', out: out('x.csv') }, '--type', /topic postbacks has no event type "LinkClicked": one of PostbackReceived/],
  ] as [ExportFlags, string, RegExp][])('%j fails naming %s', (flags, flag, message) => {
    const error = failure(flags);
    expect(error.flag).toBe(flag);
    expect(error.message).toMatch(new RegExp(`^${flag}: `));
    expect(error.message).toMatch(message);
  });
});
