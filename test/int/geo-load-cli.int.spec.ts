import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownLines, runCli } from '../support/cli.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

const LOAD = 'reference/locations/full/load-cli.ts';
const dataDir = mkdtempSync(join(tmpdir(), 'offer-ledger-geo-load-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// Every run opens the embedded database (a new one takes seconds on a busy machine).
describe('npm run geo:load -- <file> with GEO_CATALOG_SHA256', () => {
  it('pins the file given, as it would GEO_CATALOG_FILE: another digest is refused, the pinned one loads', async () => {
    const refused = await runCli(LOAD, [GEO_EXCERPT_FILE], { DATA_DIR: dataDir, GEO_CATALOG_SHA256: 'a'.repeat(64) }, 180_000);
    expect(refused.status).toBe(2);
    expect(ownLines(refused.stderr).at(-1)).toMatch(/^Refusing "geotargets-2025-07-15-excerpt\.csv": its sha256 is [0-9a-f]{64}, but GEO_CATALOG_SHA256 expects a{64}/);

    const sha256 = createHash('sha256').update(readFileSync(GEO_EXCERPT_FILE)).digest('hex');
    const loaded = await runCli(LOAD, [GEO_EXCERPT_FILE], { DATA_DIR: dataDir, GEO_CATALOG_SHA256: sha256 }, 180_000);
    expect(loaded.status, loaded.stderr).toBe(0);
    expect(JSON.parse(loaded.stdout)).toMatchObject({ status: 'loaded', sha256, activeRows: 3143 });
  }, 400_000);

  it('says a file given that does not exist is missing, with where to get a release, not as a setting', async () => {
    const missing = await runCli(LOAD, [join(dataDir, 'geotargets-2026-08-12.csv.zip')], { DATA_DIR: dataDir, GEO_CATALOG_SHA256: 'a'.repeat(64) });
    expect(missing.status).toBe(2);
    expect(ownLines(missing.stderr)).toEqual([expect.stringMatching(/does not exist\. Download the pinned release with `npm run geo:download`/)]);
  });
});
