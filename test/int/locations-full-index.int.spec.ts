import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import type { FullIndex } from '../../reference/locations/full/memory-index.js';
import { findLocation } from '../../reference/locations/full/queries.js';
import { loadFullIndex } from '../../reference/locations/full/reader.js';
import { locationJson } from '../../reference/locations/full/render.js';
import { searchLocations, type SearchConstraints } from '../../reference/locations/full/search.js';
import { normalizeSearchText } from '../../reference/locations/full/search-text.js';
import type { CursorPosition } from '../../reference/locations/full/cursor.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';
import { generateGeoCatalog, writeGeoCatalog } from '../support/geo-catalog-generator.js';

/**
 * The in-memory FULL index (what the routes serve) against the SQL definition of search and
 * lookup (search.ts, queries.ts) on the same loaded release: identical pages, cursor positions and
 * location objects, for the real excerpt and for a generated catalog with rings, missing parents,
 * accents and deep chains.
 */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Loaded {
  database: TestDatabase;
  index: FullIndex;
  releaseId: number;
}

async function load(file: string): Promise<Loaded> {
  const database = await createTestDatabase();
  const { releaseId } = await loadFullCatalog(database.db, { file });
  const index = (await loadFullIndex(database.db))!;
  return { database, index, releaseId };
}

/** Queries people type: pieces of names, ids (also with leading zeros), country codes, several words. */
function queries(index: FullIndex, count: number, seed: number): SearchConstraints[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const countries = index.countries.values;
  const types = index.types.values;
  const found: SearchConstraints[] = [];
  for (let i = 0; i < count; i++) {
    const r = Math.floor(next() * index.size);
    const source = next() < 0.7 ? index.names.at(r)! : index.canonicalNames.at(r)!;
    const roll = next();
    let q: string;
    if (roll < 0.45) q = source.slice(0, 1 + Math.floor(next() * 4));
    else if (roll < 0.7) {
      const from = Math.floor(next() * source.length);
      q = source.slice(from, from + 2 + Math.floor(next() * 6));
    } else if (roll < 0.8) q = index.ids.at(r)!;
    else if (roll < 0.85) q = `00${index.ids.at(r)}`;
    else if (roll < 0.95) q = pick(countries).toLowerCase();
    else q = `${index.names.at(r)} ${source.slice(0, 1)}`;
    const folded = normalizeSearchText(q);
    if (folded === '') continue;
    const filter = next();
    found.push({
      q: folded,
      country: filter < 0.25 ? index.countries.values[index.countryOf[r]!]! : filter < 0.3 ? pick(countries) : null,
      targetTypes: filter > 0.8 ? [...new Set([index.types.values[index.typeOf[r]!]!, pick(types)])].sort() : null,
      parentId: null,
    });
  }
  // Children of a parent: with and without q.
  for (let i = 0; i < count / 10; i++) {
    const r = Math.floor(next() * index.size);
    const parent = index.parentOf[r]!;
    if (parent < 0) continue;
    found.push({ q: null, country: null, targetTypes: null, parentId: index.ids.at(parent)! });
    found.push({ q: normalizeSearchText(index.names.at(r)!.slice(0, 2)) || 'a', country: null, targetTypes: null, parentId: index.ids.at(parent)! });
  }
  found.push({ q: 'austria a', country: null, targetTypes: null, parentId: null });
  found.push({ q: 'zzzzqx', country: null, targetTypes: null, parentId: null });
  return found;
}

async function compareSearches(loaded: Loaded, constraints: SearchConstraints[], seed: number) {
  const next = random(seed);
  let pages = 0;
  for (const search of constraints) {
    const limit = 1 + Math.floor(next() * 30);
    let after: CursorPosition | undefined;
    for (let page = 0; page < 4; page++) {
      const sql = await searchLocations(loaded.database.db, loaded.releaseId, search, limit, after);
      const matches = loaded.index.search(search, limit + 1, after);
      const memoryIds = matches.slice(0, limit).map((match) => loaded.index.ids.at(match.row));
      const where = `${JSON.stringify(search)} limit ${limit} page ${page}`;
      expect(memoryIds, where).toEqual(sql.locations.map((location) => location.location_id));
      const last = matches[limit - 1];
      const memoryNext = matches.length > limit && last ? loaded.index.positionOf(last.row, last.tier) : undefined;
      expect(memoryNext, where).toEqual(sql.next);
      pages++;
      if (!sql.next) break;
      after = sql.next;
    }
  }
  return pages;
}

describe('the in-memory FULL index answers as the SQL does', () => {
  let excerpt: Loaded;
  let generated: Loaded;
  const scratch = mkdtempSync(join(tmpdir(), 'geo-index-'));

  beforeAll(async () => {
    excerpt = await load(GEO_EXCERPT_FILE);
    const file = join(scratch, 'geotargets-2026-08-12-generated.csv');
    await writeGeoCatalog(file, generateGeoCatalog({ scale: 0.02, seed: 7 }));
    generated = await load(file);
  }, 120_000);
  afterAll(async () => {
    await excerpt?.database.drop();
    await generated?.database.drop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('renders every location of the excerpt exactly as the SQL lookup does', async () => {
    expect(excerpt.index.size).toBeGreaterThan(1000);
    for (let r = 0; r < excerpt.index.size; r++) {
      const id = excerpt.index.ids.at(r)!;
      const sql = await findLocation(excerpt.database.db, excerpt.releaseId, id);
      expect(locationJson(excerpt.index, r), id).toBe(JSON.stringify(sql));
    }
  });

  it('renders a sample of the generated catalog (rings, missing parents, deep chains) exactly as the SQL lookup does', async () => {
    const { index } = generated;
    for (let r = 0; r < index.size; r += 7) {
      const sql = await findLocation(generated.database.db, generated.releaseId, index.ids.at(r)!);
      expect(locationJson(index, r), index.ids.at(r)).toBe(JSON.stringify(sql));
    }
    expect(index.rowOf(`000${index.ids.at(0)}`)).toBe(0);
    expect(index.rowOf('99999999999999999999')).toBeUndefined();
  });

  it('pages through the same matches with the same cursor positions on the excerpt', async () => {
    expect(await compareSearches(excerpt, queries(excerpt.index, 250, 1), 2)).toBeGreaterThan(300);
  }, 120_000);

  it('pages through the same matches with the same cursor positions on the generated catalog', async () => {
    expect(await compareSearches(generated, queries(generated.index, 250, 3), 4)).toBeGreaterThan(300);
  }, 120_000);
});
