import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { createFullReader, type FullReader } from '../../reference/locations/full/reader.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

/**
 * The API's FULL index looks at most once a second whether a new release was loaded (real
 * Postgres, a clock of the test's own): the request that finds one is answered from it when its
 * index is ready in time, not from the release held before.
 */
let database: TestDatabase;
let scratch: string;
beforeAll(async () => {
  database = await createTestDatabase();
  scratch = mkdtempSync(join(tmpdir(), 'full-reader-'));
});
afterAll(async () => {
  await database.drop();
  rmSync(scratch, { recursive: true, force: true });
});

/** The excerpt as a release of `date` (a file of its own: Arizona named after the date). */
function release(date: string): string {
  const file = join(scratch, `geotargets-${date}-excerpt.csv`);
  writeFileSync(file, readFileSync(GEO_EXCERPT_FILE, 'utf8').replace('"21136","Arizona",', `"21136","Arizona ${date}",`));
  return file;
}

const load = (date: string) => loadFullCatalog(database.db, { file: release(date) });
/** The source file date of the release the reader answers from. */
const servedRelease = async (reader: FullReader, options?: { fresh?: boolean }) => (await reader.current(options))?.release.sourceFileDate;

describe('the FULL reader', () => {
  it('holds a release for a second, then answers the request that finds a new one from it', async () => {
    let clock = 1_000_000;
    // A wait long enough for any machine: what is tested is that the finding request waits, not how fast a build is.
    const reader = createFullReader(database.db, { now: () => clock, newReleaseWaitMs: 60_000 });
    await load('2026-01-01');
    expect(await servedRelease(reader)).toBe('2026-01-01');

    await load('2026-02-01');
    // Within the second the held release answers without a look at the database.
    clock += 500;
    expect(await servedRelease(reader)).toBe('2026-01-01');
    clock += 600;
    expect(await servedRelease(reader)).toBe('2026-02-01');
  });

  it('answers from the held release while a new one takes longer to index than the request waits', async () => {
    let clock = 5_000_000;
    const reader = createFullReader(database.db, { now: () => clock, newReleaseWaitMs: 200 });
    await load('2026-03-01');
    expect(await servedRelease(reader)).toBe('2026-03-01');
    await load('2026-04-01');
    clock += 1_100;
    // The new release's index cannot be read while the locations table is locked: its build outlasts the wait.
    await database.db.transaction(async (tx) => {
      await tx.query('LOCK TABLE geo_full_locations IN ACCESS EXCLUSIVE MODE');
      expect(await servedRelease(reader)).toBe('2026-03-01');
    });
    // Asked for the newest (a cursor of a release loaded since), it waits for the build.
    expect(await servedRelease(reader, { fresh: true })).toBe('2026-04-01');
  });
});
