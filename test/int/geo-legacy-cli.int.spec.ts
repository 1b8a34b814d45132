import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownLines, runCli } from '../support/cli.js';
import { withEmbeddedCluster } from '../support/embedded-cluster.js';

/** geo:coverage and geo:export-legacy without a release file read the loaded release; without one, they refuse. */
const folder = mkdtempSync(join(tmpdir(), 'geo-legacy-cli-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const COMMANDS = [['geo:coverage', 'reference/locations/legacy/coverage-cli.ts'], ['geo:export-legacy', 'reference/locations/legacy/export-cli.ts']] as const;

describe.each(COMMANDS)('npm run %s with no file', (name, entry) => {
  it('exits 2 in one line, creating no database, when DATA_DIR holds none', async () => {
    const dataDir = join(folder, `${name}-none`);
    const result = await runCli(entry, [], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    expect(result.status, result.stderr).toBe(2);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(new RegExp(`^error: no embedded database in DATA_DIR .*; ${name} creates none$`))]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('exits 2 in one line when the database holds no release', async () => {
    const dataDir = withEmbeddedCluster(join(folder, `${name}-empty`));
    expect((await runCli('platform/db/migrate-cli.ts', [], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' })).status).toBe(0);
    const result = await runCli(entry, [], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    expect(result.status, result.stderr).toBe(2);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(/^error: no release file given .* load one with npm run geo:load -- <file>$/)]);
    expect(result.stdout).toBe('');
  });
});

describe.each(COMMANDS)('npm run %s with a file', (name, entry) => {
  it('that does not exist: exits 2 in one failure line saying where to get a release, opening no database', async () => {
    const dataDir = join(folder, `${name}-missing-file`);
    const file = join(folder, 'geotargets-2026-08-12.csv.zip');
    const result = await runCli(entry, [file], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    expect(result.status, result.stderr).toBe(2);
    expect(ownLines(result.stderr)).toEqual([`error: The geo-target catalog file "${file}" does not exist. Download the pinned release with \`npm run geo:download\` (needs internet access; prints its sha256), or fetch https://developers.google.com/static/google-ads/api/data/geo/geotargets-YYYY-MM-DD.csv.zip yourself, then load it with \`npm run geo:load -- <file>\` or start the service with GEO_CATALOG_FILE=<file> (optionally GEO_CATALOG_SHA256=<sha256>).`]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('that is a folder: exits 2 in one failure line naming it and what to give instead, opening no database', async () => {
    const dataDir = join(folder, `${name}-folder`);
    const given = mkdtempSync(join(folder, 'a-folder-'));
    const result = await runCli(entry, [given], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    expect(result.status, result.stderr).toBe(2);
    expect(ownLines(result.stderr)).toEqual([`error: "${given}" is a folder; give the release file in it (geotargets-YYYY-MM-DD.csv or .zip)`]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('that is not a release: exits 2 in one failure line naming it', async () => {
    const file = join(mkdtempSync(join(folder, 'files-')), 'geotargets-2026-08-12.csv');
    writeFileSync(file, 'id,name\n1,x\n');
    const result = await runCli(entry, [file], { DATA_DIR: join(folder, `${name}-not-a-release`), LOG_LEVEL: 'silent' });
    expect(result.status, result.stderr).toBe(2);
    expect(ownLines(result.stderr)).toEqual([expect.stringMatching(/^error: ".*" is not a geo-target catalog: its header is "id,name"/)]);
  });
});
