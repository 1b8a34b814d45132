import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { startProjectors, type RunningProjectors } from '../../services/projector/projectors.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { ownLines, runCli } from '../support/cli.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { details, servingAdmin } from '../support/serving-fixtures.js';

// A new release that no longer holds a location offers target loads (it may be right), and
// geo:load says which ids and how many offers name them: their rules match nothing any more.
let t: TestRuntime;
let projectors: RunningProjectors;
const files = mkdtempSync(join(tmpdir(), 'offer-ledger-geo-targeting-'));

beforeAll(async () => {
  t = await createTestRuntime();
  projectors = await startProjectors(t.runtime);
  await loadFullCatalog(t.runtime.db, { file: GEO_EXCERPT_FILE });
  const admin = servingAdmin(t.runtime);
  const partner = await admin.partner();
  // The excerpt's last row (Oaxaca postal code 69685) and the United States.
  const targeting = [{ geo: { include: [{ location_id: '9130810' }, { location_id: '2840' }], exclude: [] } }];
  for (let n = 0; n < 2; n += 1) await admin.offer({ partner_id: partner, details: details('geo-load'), destination_url: 'https://shop.example/', targeting });
});
afterAll(async () => {
  await projectors?.stop();
  await t?.close();
  rmSync(files, { recursive: true, force: true });
});

const load = (file: string) => runCli('reference/locations/full/load-cli.ts', [file], { DATABASE_URL: t.database.url, KEY_HASH_SECRET: t.config.keyHashSecret!, LOG_LEVEL: 'silent' }, 180_000);

describe('geo:load and the offers targeting', () => {
  it('loads a release without a targeted location and warns naming it and its offers', async () => {
    const lines = readFileSync(GEO_EXCERPT_FILE, 'utf8').split('\n');
    const cut = join(files, 'geotargets-2025-07-24-cut.csv');
    writeFileSync(cut, `${lines.slice(0, 3001).join('\n')}\n`);
    const result = await load(cut);
    expect(result.status, result.stderr).toBe(0);
    expect(ownLines(result.stderr).filter((line) => line.startsWith('warning:'))).toEqual([
      "warning: offers target 1 location(s) this release does not hold: 9130810 (2 offers); rules naming them match nothing now: update those offers' targeting, or load a release that holds them",
    ]);
    // The whole excerpt again: every targeted location is back, no warning.
    const whole = await load(GEO_EXCERPT_FILE);
    expect(whole.status, whole.stderr).toBe(0);
    expect(whole.stderr).not.toMatch(/warning:/);
  }, 400_000);
});
