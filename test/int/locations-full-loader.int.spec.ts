import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { sha256OfFile } from '../../reference/locations/full/source-file.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { zipOneFile } from '../support/zip.js';
import { gzipSync } from 'node:zlib';

let database: TestDatabase;
const scratch = mkdtempSync(join(tmpdir(), 'geo-loader-'));

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

type Row = Record<string, unknown>;
async function location(id: string): Promise<Row | undefined> {
  const { rows } = await database.db.query<Row>(
    `SELECT l.location_id, l.name, l.canonical_name, l.country_code, l.target_type, l.source_parent_location_id,
            l.parent_location_id, l.chain_status, l.unresolved_source_parent_location_id, l.hierarchy_precision,
            l.path_ids::text AS path_ids
       FROM geo_full_locations l JOIN geo_full_releases r USING (release_id)
      WHERE r.is_current AND l.location_id = $1`,
    [id],
  );
  return rows[0];
}

describe('loading the real excerpt', () => {
  it('refuses a file whose sha256 differs from the configured one, writing nothing', async () => {
    await expect(loadFullCatalog(database.db, { file: GEO_EXCERPT_FILE, expectedSha256: '0'.repeat(64) })).rejects.toThrow(
      /sha256 is [0-9a-f]{64}, but GEO_CATALOG_SHA256 expects 0{64}/,
    );
    const { rows } = await database.db.query('SELECT 1 FROM geo_full_releases');
    expect(rows).toHaveLength(0);
  });

  it('loads every active record with the verified sha256 and the date from the file name', async () => {
    const sha256 = await sha256OfFile(GEO_EXCERPT_FILE);
    const result = await loadFullCatalog(database.db, { file: GEO_EXCERPT_FILE, expectedSha256: sha256.toUpperCase() });
    expect(result).toMatchObject({ status: 'loaded', sourceFileDate: '2025-07-15', sha256, sourceRows: 3143, activeRows: 3143 });
    const { rows } = await database.db.query<{ status: string; n: string }>(
      'SELECT chain_status AS status, count(*) AS n FROM geo_full_locations GROUP BY 1 ORDER BY 1',
    );
    // 250 rows name parents outside the excerpt (PROVENANCE.md).
    expect(rows).toEqual([
      { status: 'COMPLETE', n: '2893' },
      { status: 'UNRESOLVED_SOURCE_PARENT', n: '250' },
    ]);
  });

  it('says each long step before it starts: the sha256 pass, the rows, then the statistics and the LEGACY registry', async () => {
    const file = join(scratch, 'geotargets-2025-07-16.csv');
    // Another release (one row fewer), so this load does every step.
    const lines = readFileSync(GEO_EXCERPT_FILE, 'utf8').split('\n');
    writeFileSync(file, [...lines.slice(0, -3), ...lines.slice(-2)].join('\n'));
    const log: string[] = [];
    await loadFullCatalog(database.db, { file, log: (line) => log.push(line) });
    // Back to the excerpt for the tests that follow.
    expect((await loadFullCatalog(database.db, { file: GEO_EXCERPT_FILE })).status).toBe('loaded');
    const step = (pattern: RegExp) => log.findIndex((line) => pattern.test(line));
    const steps = [
      step(/^geo catalog: reading geotargets-2025-07-16\.csv \([0-9.]+ MB\) for its sha256$/),
      step(/^geo catalog: loading geotargets-2025-07-16\.csv \(sha256 [0-9a-f]{64}\)$/),
      step(/^geo catalog: 3142 locations written; updating statistics and building the LEGACY registry$/),
      step(/^legacy registry: /),
      step(/^geo catalog: loaded 3142 active of 3142 rows/),
    ];
    expect(steps.every((index) => index >= 0), log.join('\n')).toBe(true);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
  });

  it('is idempotent: a second load of the same file does no work', async () => {
    const before = await database.db.query<{ release_id: number; loaded_at: Date }>('SELECT release_id, loaded_at FROM geo_full_releases');
    const result = await loadFullCatalog(database.db, { file: GEO_EXCERPT_FILE });
    expect(result.status).toBe('already-loaded');
    const after = await database.db.query('SELECT release_id, loaded_at FROM geo_full_releases');
    expect(after.rows).toEqual(before.rows);
  });

  it('keeps countries, including a city-state and countries without regions, as complete roots', async () => {
    expect(await location('2840')).toEqual({
      location_id: '2840', name: 'United States', canonical_name: 'United States', country_code: 'US', target_type: 'Country',
      source_parent_location_id: null, parent_location_id: null, chain_status: 'COMPLETE',
      unresolved_source_parent_location_id: null, hierarchy_precision: 1, path_ids: '{2840}',
    });
    for (const [id, name] of [['2702', 'Singapore'], ['2492', 'Monaco'], ['2336', 'Vatican City']]) {
      expect(await location(id!)).toMatchObject({ name, target_type: 'Country', parent_location_id: null, chain_status: 'COMPLETE', hierarchy_precision: 1, path_ids: `{${id}}` });
    }
    // Puerto Rico is a root typed Region: the raw type is kept.
    expect(await location('2630')).toMatchObject({ target_type: 'Region', chain_status: 'COMPLETE', path_ids: '{2630}' });
  });

  it('verifies state, postal code, neighborhood and city chains', async () => {
    expect(await location('21137')).toMatchObject({
      name: 'California', target_type: 'State', source_parent_location_id: '2840', parent_location_id: '2840',
      chain_status: 'COMPLETE', hierarchy_precision: 2, path_ids: '{2840,21137}',
    });
    expect(await location('9030359')).toMatchObject({
      name: '86432', target_type: 'Postal Code', parent_location_id: '21136', hierarchy_precision: 3, path_ids: '{2840,21136,9030359}',
    });
    expect(await location('9061152')).toMatchObject({ name: 'North Mountain Village', target_type: 'Neighborhood', path_ids: '{2840,21136,9061152}' });
    expect(await location('9000000')).toMatchObject({ name: 'A0A', country_code: 'CA', path_ids: '{2124,20117,9000000}' });
    expect(await location('1000004')).toMatchObject({ name: 'The Valley', target_type: 'City', parent_location_id: '2660', path_ids: '{2660,1000004}' });
    expect(await location('20267')).toMatchObject({ name: 'Alicante', canonical_name: 'Province of Alicante,Valencia,Spain', path_ids: '{2724,21388,20267}' });
  });

  it('marks a chain whose parent is outside the file as unresolved at that raw id', async () => {
    expect(await location('1000002')).toMatchObject({
      name: 'Kabul', target_type: 'City', source_parent_location_id: '9075393', parent_location_id: null,
      chain_status: 'UNRESOLVED_SOURCE_PARENT', unresolved_source_parent_location_id: '9075393', hierarchy_precision: 1, path_ids: '{1000002}',
    });
    expect(await location('20537')).toMatchObject({
      name: 'Autonomous Province of Bolzano – South Tyrol', chain_status: 'UNRESOLVED_SOURCE_PARENT',
      unresolved_source_parent_location_id: '9053439',
    });
  });
});

describe('a zipped release', () => {
  it('loads from the zip and replaces the previous release in one switch', async () => {
    const file = join(scratch, 'geotargets-2025-07-15.csv.zip');
    writeFileSync(file, zipOneFile('geotargets-2025-07-15.csv', readFileSync(GEO_EXCERPT_FILE)));
    const before = await database.db.query<{ release_id: number }>('SELECT release_id FROM geo_full_releases WHERE is_current');
    const result = await loadFullCatalog(database.db, { file, expectedSha256: await sha256OfFile(file) });
    expect(result).toMatchObject({ status: 'loaded', sourceFileDate: '2025-07-15', sourceRows: 3143, activeRows: 3143 });
    expect(result.releaseId).not.toBe(before.rows[0]!.release_id);
    const { rows } = await database.db.query<{ release_id: number; n: string }>(
      'SELECT release_id, count(*) AS n FROM geo_full_locations GROUP BY 1',
    );
    expect(rows).toEqual([{ release_id: result.releaseId, n: '3143' }]);
    expect(await location('21137')).toMatchObject({ name: 'California', path_ids: '{2840,21137}' });
    expect((await loadFullCatalog(database.db, { file })).status).toBe('already-loaded');
  });
});

describe('refusing files', () => {
  it('refuses a file whose header is not the geo-target header', async () => {
    const file = join(scratch, 'geotargets-2025-07-15-bad-header.csv');
    writeFileSync(file, 'id,name,parent\n"1","x",""\n');
    await expect(loadFullCatalog(database.db, { file })).rejects.toThrow(
      'is not a geo-target catalog: its header is "id,name,parent", expected "Criteria ID,Name,Canonical Name,Parent ID,Country Code,Target Type,Status"',
    );
  });

  // The excerpt with one line changed as a damaged copy or a hand edit would (line 101 is
  // "1000227","Katoomba",…, line 151 another city, line 2 the first data line).
  const excerptLines = () => readFileSync(GEO_EXCERPT_FILE, 'utf8').split('\n');
  const withLine = (index: number, edit: (line: string) => string) => {
    const lines = excerptLines();
    lines[index] = edit(lines[index]!);
    return lines.join('\n');
  };
  const AGAIN = 'nothing was loaded: download the release again.';
  it.each([
    ['an extra field', withLine(100, (line) => `${line},"x"`), `Line 101 of "FILE" has 8 fields, expected 7; ${AGAIN}`],
    ['a Criteria ID beyond any id', withLine(100, (line) => line.replace('"1000227"', '"99999999999999999999"')), `Line 101 of "FILE" has a Criteria ID that is not a number without leading zeros: "99999999999999999999"; ${AGAIN}`],
    // 02840 would be stored as the id of the United States, and collide with it.
    ['a Criteria ID with a leading zero', withLine(100, (line) => line.replace('"1000227"', '"02840"')), `Line 101 of "FILE" has a Criteria ID that is not a number without leading zeros: "02840"; ${AGAIN}`],
    ['a Parent ID that is not an id', withLine(100, (line) => line.replace(/^("[^"]*","[^"]*","[^"]*",)"[^"]*"/, '$1"9075x"')), `Line 101 of "FILE" has a Parent ID that is neither empty nor a Criteria ID: "9075x"; ${AGAIN}`],
    ['a Country Code in lower case', withLine(100, (line) => line.replace('"AU"', '"au"')), `Line 101 of "FILE" has a Country Code that is not two capital letters (ISO 3166-1): "au"; ${AGAIN}`],
    ['an empty Country Code', withLine(100, (line) => line.replace('"AU"', '""')), `Line 101 of "FILE" has a Country Code that is not two capital letters (ISO 3166-1): ""; ${AGAIN}`],
    ['an unknown Status', withLine(100, (line) => line.replace(/,Active$/, ',Removed')), `Line 101 of "FILE" has a Status that is neither Active nor Removal Planned: "Removed"; ${AGAIN}`],
    ['a Criteria ID twice, with other content', withLine(150, () => excerptLines()[100]!.replace('"Kandahar"', '"Qandahar"')), `Line 151 of "FILE" repeats Criteria ID 1000227 of line 101; ${AGAIN}`],
    ['a file cut in the middle of a row', `${excerptLines().slice(0, 1600).join('\n')}\n${excerptLines()[1600]!.slice(0, 15)}`, /^"FILE" is not readable as a geo-target CSV \(Quote Not Closed: .* at line 1601\); is it cut short\? nothing was loaded: download the release again\.$/],
  ])('refuses %s naming the file and the line, and keeps the current release', async (_what, text, message) => {
    const current = async () => (await database.db.query('SELECT release_id, file_sha256 FROM geo_full_releases WHERE is_current')).rows;
    const before = await current();
    const file = join(scratch, 'geotargets-2025-07-26-edited.csv');
    writeFileSync(file, text);
    const expected = typeof message === 'string' ? message.replace('FILE', 'geotargets-2025-07-26-edited.csv') : new RegExp(message.source.replace('FILE', 'geotargets-2025-07-26-edited\\.csv'));
    const error = await loadFullCatalog(database.db, { file }).then(() => undefined, (thrown: unknown) => thrown as Error);
    expect(error?.name).toBe('CatalogFileError');
    if (typeof expected === 'string') expect(error?.message).toBe(expected);
    else expect(error?.message).toMatch(expected);
    expect(await current()).toEqual(before);
  });

  it('says a gzip file is compressed, not that it is not UTF-8', async () => {
    const file = join(scratch, 'geotargets-2025-07-15.csv.gz');
    writeFileSync(file, gzipSync(readFileSync(GEO_EXCERPT_FILE)));
    await expect(loadFullCatalog(database.db, { file })).rejects.toThrow(
      '"geotargets-2025-07-15.csv.gz" is gzip-compressed; the loader reads the release\'s CSV or its .zip as Google publishes it: unpack it (gunzip) or download the .zip',
    );
  });

  it('refuses the bytes of the current release under a name of another date, naming both', async () => {
    const current = async () => (await database.db.query('SELECT release_id, source_file_date FROM geo_full_releases WHERE is_current')).rows;
    await loadFullCatalog(database.db, { file: GEO_EXCERPT_FILE });
    const before = await current();
    expect(before).toEqual([{ release_id: expect.any(Number), source_file_date: '2025-07-15' }]);
    const file = join(scratch, 'geotargets-2026-08-12.csv');
    writeFileSync(file, readFileSync(GEO_EXCERPT_FILE));
    await expect(loadFullCatalog(database.db, { file })).rejects.toThrow(
      'Refusing "geotargets-2026-08-12.csv": its bytes are those of the current release, loaded from "geotargets-2025-07-15-excerpt.csv" as 2025-07-15, but its name says 2026-08-12. ' +
        'The release date is read from the file name: give the file its release\'s name (as Google publishes it); nothing was loaded',
    );
    await expect(loadFullCatalog(database.db, { file })).rejects.toThrow(/^Refusing/);
    expect(await current()).toEqual(before);
  });

  it('refuses a file without the release date in its name', async () => {
    const file = join(scratch, 'catalog.csv');
    writeFileSync(file, readFileSync(GEO_EXCERPT_FILE));
    await expect(loadFullCatalog(database.db, { file })).rejects.toThrow('the file name must start with geotargets-YYYY-MM-DD');
  });

  it('refuses a release with no active location, or under half the current one (a file cut short), writing nothing; --allow-shrink loads it', async () => {
    const current = async () => (await database.db.query<{ active_rows: number }>('SELECT active_rows FROM geo_full_releases WHERE is_current')).rows[0];
    const before = await current();
    expect(before?.active_rows).toBe(3143);
    const lines = readFileSync(GEO_EXCERPT_FILE, 'utf8').split('\n');
    const empty = join(scratch, 'geotargets-2025-07-18.csv');
    writeFileSync(empty, `${lines[0]}\n`);
    await expect(loadFullCatalog(database.db, { file: empty })).rejects.toThrow('it holds no active location (is it cut short?); nothing was loaded');
    // Cut between lines: it still parses.
    const cut = join(scratch, 'geotargets-2025-07-15-cut.csv');
    writeFileSync(cut, `${lines.slice(0, 500).join('\n')}\n`);
    await expect(loadFullCatalog(database.db, { file: cut })).rejects.toThrow(/it holds 499 active locations, under half of the 3143 of the current release .*run `npm run geo:load -- <file> --allow-shrink`/);
    expect(await current()).toEqual(before);
    const shrunk = await loadFullCatalog(database.db, { file: cut, allowShrink: true });
    expect(shrunk).toMatchObject({ status: 'loaded', activeRows: 499 });
    expect((await loadFullCatalog(database.db, { file: GEO_EXCERPT_FILE })).activeRows).toBe(3143);
  });

  it('says a folder is not a release file', async () => {
    await expect(loadFullCatalog(database.db, { file: scratch })).rejects.toThrow(`"${scratch}" is a folder; give the release file in it`);
  });

  it('says how to get the file when it is missing', async () => {
    await expect(loadFullCatalog(database.db, { file: join(scratch, 'geotargets-2026-08-12.csv.zip') })).rejects.toThrow(
      /does not exist\. Download the pinned release with `npm run geo:download`/,
    );
  });
});
