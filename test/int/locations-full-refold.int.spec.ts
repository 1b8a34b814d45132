import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFullCatalog } from '../../reference/locations/full/loader.js';
import { normalizeSearchText, searchHaystack } from '../../reference/locations/full/search-text.js';
import { SPECIAL_LETTERS } from '../../reference/locations/special-letters.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { GEO_EXCERPT_FILE } from '../support/geo-excerpt.js';

const MIGRATION = readFileSync(new URL('../../reference/locations/full/migrations/20261128_1100_geo_full_special_letters.sql', import.meta.url), 'utf8');

/** FULL's folding before the special letters were folded: what keys loaded earlier hold. */
const foldedBefore = (text: string) => text.normalize('NFD').replace(/\p{M}+/gu, '').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
const haystackBefore = (name: string, canonical: string) => ` ${foldedBefore(name)} | ${foldedBefore(canonical)} `;

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await loadFullCatalog(database.db, { file: GEO_EXCERPT_FILE });
}, 120_000);
afterAll(() => database.drop());

describe('the migration that refolds stored FULL search keys', () => {
  it('gives every stored key what the loader now writes, and leaves keys without special letters alone', async () => {
    const special = fc.constantFrom(...Object.keys(SPECIAL_LETTERS), ...Object.keys(SPECIAL_LETTERS).map((letter) => letter.toUpperCase()), 'ẞ');
    const name = fc.string({ unit: fc.oneof(special, fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' })), minLength: 1, maxLength: 20 });
    const names = fc.sample(name, 200);
    const { rows: targets } = await database.db.query<{ location_id: string; name_norm: string; text_norm: string }>(
      'SELECT location_id::text, name_norm, text_norm FROM geo_full_locations ORDER BY location_id LIMIT $1',
      [names.length + 50],
    );
    // The first rows get keys as loaded before, from generated names; the others keep theirs.
    const changed = targets.slice(0, names.length);
    for (const [index, target] of changed.entries()) {
      await database.db.query('UPDATE geo_full_locations SET name_norm = $2, text_norm = $3 WHERE location_id = $1::bigint', [
        target.location_id, foldedBefore(names[index]!), haystackBefore(names[index]!, `${names[index]!},Ærø`),
      ]);
    }
    await database.db.query(MIGRATION);
    const { rows } = await database.db.query<{ location_id: string; name_norm: string; text_norm: string }>(
      'SELECT location_id::text, name_norm, text_norm FROM geo_full_locations WHERE location_id = ANY($1::bigint[]) ORDER BY location_id',
      [targets.map((target) => target.location_id)],
    );
    const byId = new Map(rows.map((row) => [row.location_id, row]));
    for (const [index, target] of changed.entries()) {
      expect(byId.get(target.location_id)).toEqual({
        location_id: target.location_id, name_norm: normalizeSearchText(names[index]!), text_norm: searchHaystack(names[index]!, `${names[index]!},Ærø`),
      });
    }
    for (const target of targets.slice(names.length)) expect(byId.get(target.location_id)).toEqual(target);
  });
});
