import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownLines, runCli } from '../support/cli.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { zipOneFile } from '../support/zip.js';
import { dataDirWithCluster, withEmbeddedCluster } from '../support/embedded-cluster.js';

const LOAD = 'reference/locations/full/load-cli.ts';
const dataDir = dataDirWithCluster('offer-ledger-geo-load-');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// Every run opens the embedded database (a new one takes seconds on a busy machine).
describe('npm run geo:load -- <file> with GEO_CATALOG_SHA256', () => {
  it('pins the file given, as it would GEO_CATALOG_FILE: another digest is refused, the pinned one loads', async () => {
    const refused = await runCli(LOAD, [GEO_EXCERPT_FILE], { DATA_DIR: dataDir, GEO_CATALOG_SHA256: 'a'.repeat(64) }, 180_000);
    expect(refused.status).toBe(2);
    expect(ownLines(refused.stderr).at(-1)).toMatch(/^error: Refusing "geotargets-2025-07-15-excerpt\.csv": its sha256 is [0-9a-f]{64}, but GEO_CATALOG_SHA256 expects a{64}/);

    const sha256 = createHash('sha256').update(readFileSync(GEO_EXCERPT_FILE)).digest('hex');
    const loaded = await runCli(LOAD, [GEO_EXCERPT_FILE], { DATA_DIR: dataDir, GEO_CATALOG_SHA256: sha256 }, 180_000);
    expect(loaded.status, loaded.stderr).toBe(0);
    expect(JSON.parse(loaded.stdout)).toMatchObject({ status: 'loaded', sha256, activeRows: 3143 });
  }, 400_000);

  it('refuses a release that is not UTF-8, a damaged zip and a zip with no CSV as bad files (exit 2), loading nothing', async () => {
    const files = mkdtempSync(join(tmpdir(), 'offer-ledger-geo-files-'));
    try {
      // The excerpt with its en dashes written as one Latin-1 byte: names would load with U+FFFD.
      const latin1 = join(files, 'geotargets-2025-07-23-latin1.csv');
      writeFileSync(latin1, Buffer.from(readFileSync(GEO_EXCERPT_FILE, 'utf8').replaceAll('\u2013', '\u00e9'), 'latin1'));
      const damaged = join(files, 'geotargets-2025-07-19-damaged.zip');
      writeFileSync(damaged, Buffer.from('PK\x03\x04 not a zip after all', 'latin1'));
      const noCsv = join(files, 'geotargets-2025-07-21-readme.zip');
      writeFileSync(noCsv, zipOneFile('README.txt', Buffer.from('no release in here\n')));
      // Each in a DATA_DIR of its own: all run at once.
      const load = (file: string, index: number) => runCli(LOAD, [file], { DATA_DIR: withEmbeddedCluster(join(files, `data-${index}`)) }, 180_000);
      const [notUtf8, notZip, withoutCsv] = await Promise.all([load(latin1, 0), load(damaged, 1), load(noCsv, 2)]);
      expect(notUtf8.status, notUtf8.stderr).toBe(2);
      expect(ownLines(notUtf8.stderr).at(-1)).toMatch(/^error: "geotargets-2025-07-23-latin1\.csv" is not UTF-8 text \(near byte \d+\); the geo-target releases are UTF-8/);
      expect(notZip.status, notZip.stderr).toBe(2);
      expect(ownLines(notZip.stderr).at(-1)).toMatch(/^error: "geotargets-2025-07-19-damaged\.zip" is not a readable zip \(.+\); download the release again/);
      expect(withoutCsv.status, withoutCsv.stderr).toBe(2);
      expect(ownLines(withoutCsv.stderr).at(-1)).toMatch(/^error: "geotargets-2025-07-21-readme\.zip" is a zip without a \.csv file inside; give the geo-target release .*, or download it again with npm run geo:download$/);
    } finally {
      rmSync(files, { recursive: true, force: true });
    }
  }, 400_000);

  it('says a file given that does not exist is missing, with where to get a release, not as a setting', async () => {
    const missing = await runCli(LOAD, [join(dataDir, 'geotargets-2026-08-12.csv.zip')], { DATA_DIR: dataDir, GEO_CATALOG_SHA256: 'a'.repeat(64) });
    expect(missing.status).toBe(2);
    expect(ownLines(missing.stderr)).toEqual([expect.stringMatching(/^error: The geo-target catalog file ".*geotargets-2026-08-12\.csv\.zip" does not exist\. Download the pinned release with `npm run geo:download`/)]);
  });

  it('says so in one failure line when no file is given and GEO_CATALOG_FILE is unset', async () => {
    const none = await runCli(LOAD, [], { DATA_DIR: dataDir });
    expect(none.status).toBe(2);
    expect(ownLines(none.stderr)).toEqual([expect.stringMatching(/^error: No geo-target catalog file is configured\. Download the pinned release with `npm run geo:download`/)]);
  });
});
