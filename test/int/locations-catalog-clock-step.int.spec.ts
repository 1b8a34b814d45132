import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Db } from '../../platform/db/db.js';
import { connectPostgres } from '../../platform/db/postgres.js';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { createFullReader } from '../../reference/locations/full/reader.js';
import { currentRegistry } from '../../services/api/routes/locations/legacy-registry.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

/**
 * Each API process looks at most once a second whether a new location release was loaded (both
 * catalogs, real Postgres). That second is kept when the machine's wall clock is stepped back (an
 * NTP correction): a release loaded meanwhile is answered from a second later, not once the wall
 * clock has made up the step. Only Date is stepped; the monotonic clock is faked and moved on.
 */
let database: TestDatabase;
let scratch: string;
let handle: Db;
beforeAll(async () => {
  database = await createTestDatabase();
  scratch = mkdtempSync(join(tmpdir(), 'catalog-clock-step-'));
  handle = connectPostgres(database.url);
});
afterEach(() => vi.useRealTimers());
afterAll(async () => {
  await handle?.close();
  await database?.drop();
  rmSync(scratch, { recursive: true, force: true });
});

/** Loads the excerpt as a release of `date` (Arizona named after the date, so the LEGACY build changes too). */
async function load(date: string) {
  const file = join(scratch, `geotargets-${date}-excerpt.csv`);
  writeFileSync(file, readFileSync(GEO_EXCERPT_FILE, 'utf8').replace('"21136","Arizona",', `"21136","Arizona ${date}",`));
  await loadFullCatalog(database.db, { file });
}

describe('the location catalogs when the wall clock steps back', () => {
  it('answer from a release loaded since a second later, not ten minutes later', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    const reader = createFullReader(database.db, { newReleaseWaitMs: 60_000 });
    await load('2026-01-01');
    expect((await reader.current())?.release.sourceFileDate).toBe('2026-01-01');
    expect((await currentRegistry(handle)).sourceFileDate).toBe('2026-01-01');

    await load('2026-02-01');
    vi.setSystemTime(Date.now() - 10 * 60_000);
    vi.advanceTimersByTime(1_100);
    expect((await reader.current())?.release.sourceFileDate).toBe('2026-02-01');
    expect((await currentRegistry(handle)).sourceFileDate).toBe('2026-02-01');
  });
});
