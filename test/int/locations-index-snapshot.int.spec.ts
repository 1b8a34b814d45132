import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../platform/db/db.js';
import { connectPostgres } from '../../platform/db/postgres.js';
import type { CursorPosition } from '../../reference/locations/full/cursor.js';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import type { FullIndex } from '../../reference/locations/full/memory-index.js';
import { loadFullIndex } from '../../reference/locations/full/reader.js';
import { locationJson, pathJson } from '../../reference/locations/full/render.js';
import type { SearchConstraints } from '../../reference/locations/full/search.js';
import { normalizeSearchText } from '../../reference/locations/full/search-text.js';
import { indexSnapshots, SNAPSHOT_FORMAT, useIndexSnapshots, type IndexSnapshots } from '../../reference/locations/index-snapshots.js';
import type { RegistryIndex } from '../../reference/locations/legacy/registry-index.js';
import { rankAll } from '../../reference/locations/legacy/search.js';
import { currentRegistry } from '../../services/api/routes/locations/legacy-registry.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { generateGeoCatalog, writeGeoCatalog } from '../support/geo-catalog-generator.js';

/**
 * Location indexes kept between starts (index-snapshots.ts): one loaded from its snapshot holds
 * and answers exactly what a fresh build of the same data does; a damaged snapshot, or one of an
 * earlier release, is never used: the index is built from the database and the snapshot rewritten.
 */
let database: TestDatabase;
const folder = mkdtempSync(join(tmpdir(), 'geo-index-snapshots-'));
const log: string[] = [];
let snapshots: IndexSnapshots;
const handles: Db[] = [];

/** The excerpt's indexes built from the database, without snapshots. */
let built: FullIndex;
let builtRegistry: RegistryIndex;

beforeAll(async () => {
  database = await createTestDatabase();
  await loadFullCatalog(database.db, { file: GEO_EXCERPT_FILE });
  snapshots = indexSnapshots(folder, (line) => log.push(line));
  built = (await loadFullIndex(database.db, undefined))!;
  builtRegistry = await registry(false);
}, 60_000);
afterAll(async () => {
  for (const handle of handles) await handle.close();
  await database?.drop();
  rmSync(folder, { recursive: true, force: true });
});

/** The LEGACY registry as a process would get it (each Db handle has its own), with or without snapshots. */
async function registry(withSnapshots: boolean): Promise<RegistryIndex> {
  const db = connectPostgres(database.url);
  handles.push(db);
  useIndexSnapshots(db, withSnapshots ? snapshots : undefined);
  return currentRegistry(db);
}

/** Logged since `from`. */
const logSince = (from: number) => log.slice(from).join('\n');

/** Digest of a state: every typed array's bytes and every string, in a fixed order. */
function digest(value: unknown): string {
  const hash = createHash('sha256');
  const walk = (item: unknown): void => {
    if (ArrayBuffer.isView(item)) {
      hash.update(`${item.constructor.name}:${item.byteLength}:`).update(new Uint8Array(item.buffer, item.byteOffset, item.byteLength));
    } else if (Array.isArray(item)) {
      hash.update(`[${item.length}`);
      item.forEach(walk);
    } else if (item !== null && typeof item === 'object') {
      for (const key of Object.keys(item).sort()) {
        hash.update(`{${key}:`);
        walk((item as Record<string, unknown>)[key]);
      }
    } else {
      hash.update(`${typeof item}:${JSON.stringify(item)};`);
    }
  };
  walk(value);
  return hash.digest('hex');
}

/** Searches people type, paged with cursors: the matches and cursor positions of every page. */
function answers(index: FullIndex): unknown[] {
  const found: unknown[] = [];
  const searches: SearchConstraints[] = [];
  const country = (r: number) => index.countries.values[index.countryOf[r]!]!;
  for (let r = 0; r < index.size; r += 41) {
    const name = index.names.at(r)!;
    for (const q of [name.slice(0, 1), name.slice(0, 3), name.slice(1, 5), index.canonicalNames.at(r)!.slice(-6), index.ids.at(r)!, country(r).toLowerCase()]) {
      const folded = normalizeSearchText(q);
      if (folded === '') continue;
      searches.push({ q: folded, country: null, targetTypes: null, parentId: null });
      searches.push({ q: folded, country: country(r), targetTypes: null, parentId: null });
      searches.push({ q: folded, country: null, targetTypes: [index.types.values[index.typeOf[r]!]!], parentId: null });
    }
    if (index.parentOf[r]! >= 0) searches.push({ q: null, country: null, targetTypes: null, parentId: index.ids.at(index.parentOf[r]!)! });
  }
  for (const search of searches) {
    let after: CursorPosition | undefined;
    for (let page = 0; page < 3; page++) {
      const matches = index.search(search, 11, after);
      found.push(matches.map((match) => [index.ids.at(match.row), match.tier]));
      const last = matches[9];
      if (matches.length <= 10 || !last) break;
      after = index.positionOf(last.row, last.tier);
    }
  }
  return found;
}

function legacyAnswers(index: RegistryIndex): unknown[] {
  const found: unknown[] = [];
  const ids = (list: readonly { id: string }[]) => list.map((location) => location.id);
  index.ordered.forEach((location, i) => {
    if (i % 7 !== 0) return;
    found.push(ids(index.pathOf(location)), ids(index.childrenOf(location.id)), ids(index.descendantsOf(location.id)));
    for (const q of [location.name.slice(0, 2), location.name.slice(1, 4), location.canonicalName.slice(-5), location.id]) {
      found.push(ids(rankAll(index, q, 10).locations), ids(rankAll(index, q, 10, () => true, { country: location.countryCode }).locations));
    }
  });
  return found;
}

describe('location index snapshots', () => {
  it('FULL: the first load builds and saves; the next loads the snapshot, which holds and answers exactly what the build does', async () => {
    const first = (await loadFullIndex(database.db, snapshots))!;
    expect(first.timings.restored).toBe(false);
    await snapshots.settled();
    expect(existsSync(join(folder, 'full.snapshot'))).toBe(true);

    const restored = (await loadFullIndex(database.db, snapshots))!;
    expect(restored.timings.restored).toBe(true);
    expect(restored.release).toEqual(built.release);
    expect(restored.state).toEqual(built.state);
    for (let r = 0; r < built.size; r++) {
      expect(locationJson(restored, r)).toBe(locationJson(built, r));
      expect(pathJson(restored, r)).toBe(pathJson(built, r));
      expect(restored.rowOf(built.ids.at(r)!)).toBe(r);
    }
    const expected = answers(built);
    expect(expected.length).toBeGreaterThan(1000);
    expect(answers(restored)).toEqual(expected);
  }, 60_000);

  it('LEGACY: the same, for the registry', async () => {
    const from = log.length;
    await registry(true);
    await snapshots.settled();
    expect(logSince(from)).toMatch(/LEGACY index snapshot written/);

    const restored = await registry(true);
    expect(logSince(from)).toMatch(/LEGACY index loaded from its snapshot/);
    expect(restored.state).toEqual(builtRegistry.state);
    expect(restored.ordered).toEqual(builtRegistry.ordered);
    expect(restored.byIsoCode('US-CA')?.id).toBe(builtRegistry.byIsoCode('US-CA')?.id);
    expect(restored.countryByCode.size).toBe(builtRegistry.countryByCode.size);
    expect(legacyAnswers(restored)).toEqual(legacyAnswers(builtRegistry));
  }, 60_000);

  it('holds what SNAPSHOT_FORMAT says: a change to what an index holds must come with a new format', () => {
    // Digests of the excerpt's indexes per format. When a change to the index code fails this,
    // bump SNAPSHOT_FORMAT (so no process loads an older snapshot) and add the new digests; never
    // edit an existing entry.
    const digests: Record<number, { full: string; legacy: string }> = {
      1: { full: '3886fccb72795671754cf5581e8cb6a4ec689187da3f3116551ab84ed7cc4a4a', legacy: '64abcce2ea9a6b88d2e5fe99363b06a8e714ff9c5de9f1da87e4014682b919c9' },
      // LEGACY codes agree with current ISO names (derivation 2): the registry holds other codes.
      2: { full: '3886fccb72795671754cf5581e8cb6a4ec689187da3f3116551ab84ed7cc4a4a', legacy: 'ef7e5da9ff191d687ca821f1e08e16a0869e26e7a92de324c605de07dc85bb2a' },
      // FULL keys fold ß, ł, ø... as LEGACY does (a migration refolds stored keys); the excerpt holds
      // none of those letters, so its digests are format 2's.
      3: { full: '3886fccb72795671754cf5581e8cb6a4ec689187da3f3116551ab84ed7cc4a4a', legacy: 'ef7e5da9ff191d687ca821f1e08e16a0869e26e7a92de324c605de07dc85bb2a' },
      // Ngazidja carries KM-G (a reviewed name of the region): the registry holds one more code.
      4: { full: '3886fccb72795671754cf5581e8cb6a4ec689187da3f3116551ab84ed7cc4a4a', legacy: 'e83519aa7443bb7c9045d968dc58300bba0ab7d26f4e92ae918f875710faa613' },
    };
    expect({ full: digest(built.state), legacy: digest(builtRegistry.state) }).toEqual(digests[SNAPSHOT_FORMAT]);
  });

  it('a damaged or cut snapshot is detected, not used, and rewritten', async () => {
    await loadFullIndex(database.db, snapshots);
    await registry(true);
    await snapshots.settled();
    for (const [kind, damage] of [
      ['full', (bytes: Buffer) => { bytes[bytes.length >> 1]! ^= 1; return bytes; }],
      ['full', (bytes: Buffer) => bytes.subarray(0, bytes.length - 100)],
      ['legacy', (bytes: Buffer) => { bytes[bytes.length - 33]! ^= 4; return bytes; }],
    ] as const) {
      const path = join(folder, `${kind}.snapshot`);
      writeFileSync(path, damage(readFileSync(path)));
      const from = log.length;
      if (kind === 'full') {
        const index = (await loadFullIndex(database.db, snapshots))!;
        expect(index.timings.restored).toBe(false);
        expect(index.state).toEqual(built.state);
      } else {
        expect((await registry(true)).state).toEqual(builtRegistry.state);
      }
      expect(logSince(from)).toMatch(new RegExp(`${kind.toUpperCase()} index snapshot is corrupt`));
      await snapshots.settled();
      expect(logSince(from)).toMatch(new RegExp(`${kind.toUpperCase()} index snapshot written`));
    }
    expect((await loadFullIndex(database.db, snapshots))!.timings.restored).toBe(true);
  }, 60_000);

  it('a new release never uses the snapshot of the previous one', async () => {
    const file = join(folder, 'geotargets-2026-08-12-generated.csv');
    await writeGeoCatalog(file, generateGeoCatalog({ scale: 0.01, seed: 11 }));
    const { activeRows } = await loadFullCatalog(database.db, { file });
    const from = log.length;

    const index = (await loadFullIndex(database.db, snapshots))!;
    expect(index.timings.restored).toBe(false);
    expect(index.release.sourceFileDate).toBe('2026-08-12');
    expect(index.size).toBe(activeRows);
    expect(logSince(from)).toMatch(/FULL index snapshot is stale/);
    const legacy = await registry(true);
    expect(logSince(from)).toMatch(/LEGACY index snapshot is stale/);
    expect(legacy.sourceFileDate).toBe('2026-08-12');

    const fresh = (await loadFullIndex(database.db, undefined))!;
    expect(index.state).toEqual(fresh.state);
    expect(legacy.state).toEqual((await registry(false)).state);
    await snapshots.settled();
    const again = (await loadFullIndex(database.db, snapshots))!;
    expect(again.timings.restored).toBe(true);
    expect(again.state).toEqual(fresh.state);
  }, 120_000);
});
