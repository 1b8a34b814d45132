import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CursorPosition } from '../../reference/locations/full/cursor.js';
import { FullIndex, type FullIndexRow } from '../../reference/locations/full/memory-index.js';
import { locationIdsJson, locationJson, pathJson } from '../../reference/locations/full/render.js';
import type { SearchConstraints } from '../../reference/locations/full/search.js';
import { normalizeSearchText, searchHaystack } from '../../reference/locations/full/search-text.js';
import { typeBucket } from '../../reference/locations/full/type-buckets.js';
import { compareCodePoints } from '../../reference/locations/text-index.js';

/**
 * The in-memory FULL index against a straightforward reading of search.ts's SQL: every row gets
 * its tier from the conditions as written there, rows are sorted by (tier, bucket, folded name in
 * code point order, numeric id), and a page is what follows the cursor.
 */
const release = { releaseId: 1, sourceFileDate: '2026-08-12', cursorSecret: 'secret' };
const TYPES = ['Country', 'State', 'County', 'City', 'Neighborhood', 'Postal Code', 'Airport', 'Colloquial Area'];
const COUNTRIES = ['AA', 'BB', 'SA'];
// Few letters so that names share prefixes, words and substrings; accents, punctuation and a letter beyond U+FFFF.
const LETTERS = ['a', 'b', 's', 'n', 'á', ' ', '-', ',', '𝔞', 'ﬀ', '1'];

interface Draft {
  name: string;
  canonicalSuffix: string;
  type: string;
  country: string;
  parent: number | null;
  unresolved: boolean;
  level: 0 | 1 | 2 | 3;
}

const word = fc.string({ unit: fc.constantFrom(...LETTERS), minLength: 1, maxLength: 7 });
const draft = fc.record({
  name: word,
  canonicalSuffix: fc.constantFrom('', ',Sana', ',Bas, Ab'),
  type: fc.constantFrom(...TYPES),
  country: fc.constantFrom(...COUNTRIES),
  parent: fc.option(fc.nat(), { nil: null }),
  unresolved: fc.boolean(),
  level: fc.constantFrom(0, 0, 1, 2, 3),
});

/** Rows with verified parents pointing backwards (a forest), ids unique and not in order. */
function catalog(drafts: Draft[]): FullIndexRow[] {
  const ids = drafts.map((_, i) => String(1000 + ((i * 7919) % 9001)));
  const rows: FullIndexRow[] = [];
  drafts.forEach((d, i) => {
    const parentIndex = d.parent === null || i === 0 ? null : d.parent % i;
    const parent = parentIndex === null ? null : rows[parentIndex]!;
    const canonicalName = `${d.name}${d.canonicalSuffix}`;
    rows.push({
      locationId: ids[i]!,
      name: d.name,
      canonicalName,
      countryCode: parent?.countryCode ?? d.country,
      targetType: d.type,
      sourceParentId: parent ? parent.locationId : d.unresolved ? '77' : null,
      parentId: parent ? parent.locationId : null,
      chainStatus: (parent ? parent.chainStatus : d.unresolved ? 'UNRESOLVED_SOURCE_PARENT' : 'COMPLETE'),
      unresolvedParentId: parent ? parent.unresolvedParentId : d.unresolved ? '77' : null,
      typeBucket: typeBucket(d.type),
      nameNorm: normalizeSearchText(d.name),
      textNorm: searchHaystack(d.name, canonicalName),
      legacyLevel: ([null, 'COUNTRY', 'REGION', 'CITY'] as const)[d.level],
    });
  });
  return rows;
}

interface Ranked {
  row: FullIndexRow;
  tier: number;
}

/** search.ts, read literally. */
function referenceSearch(rows: FullIndexRow[], c: SearchConstraints): Ranked[] {
  const { q } = c;
  const id = q !== null && /^(?:0|[1-9][0-9]*)$/.test(q) && q.length < 20 ? BigInt(q) : undefined;
  const code = q !== null && /^[a-z]{2}$/.test(q) ? q.toUpperCase() : undefined;
  const ranked: Ranked[] = [];
  for (const row of rows) {
    if (c.country !== null && row.countryCode !== c.country) continue;
    if (c.targetTypes !== null && !c.targetTypes.includes(row.targetType)) continue;
    if (c.parentId !== null && (row.parentId === null || BigInt(row.parentId) !== BigInt(c.parentId))) continue;
    let tier: number | undefined;
    if (q === null) tier = 0;
    else if ((id !== undefined && BigInt(row.locationId) === id) || (code !== undefined && row.sourceParentId === null && row.countryCode === code)) tier = 0;
    else if (row.nameNorm === q) tier = 1;
    else if (row.nameNorm.startsWith(q)) tier = 2;
    else if (row.textNorm.includes(` ${q}`)) tier = 3;
    else if (row.textNorm.includes(q)) tier = 4;
    else if (code !== undefined && row.countryCode === code) tier = 5;
    if (tier !== undefined) ranked.push({ row, tier });
  }
  return ranked.sort(byKey);
}

function byKey(a: Ranked, b: Ranked): number {
  return a.tier - b.tier || a.row.typeBucket - b.row.typeBucket || compareCodePoints(a.row.nameNorm, b.row.nameNorm) ||
    (BigInt(a.row.locationId) < BigInt(b.row.locationId) ? -1 : BigInt(a.row.locationId) > BigInt(b.row.locationId) ? 1 : 0);
}

const positionOf = ({ row, tier }: Ranked): CursorPosition => ({ tier, bucket: row.typeBucket, name: row.nameNorm, id: row.locationId });
const afterCursor = (ranked: Ranked[], after: CursorPosition) =>
  ranked.filter((r) => byKey(r, { tier: after.tier, row: { typeBucket: after.bucket, nameNorm: after.name, locationId: after.id } as FullIndexRow }) > 0);

const constraints = (rows: FullIndexRow[]) =>
  fc.record({
    q: fc.oneof(
      word.map(normalizeSearchText),
      fc.tuple(fc.nat(), fc.nat(), fc.nat({ max: 5 })).map(([r, from, length]) => {
        const text = rows[r % rows.length]!.textNorm;
        return normalizeSearchText(text.slice(from % text.length, (from % text.length) + 1 + length));
      }),
      fc.nat().map((r) => rows[r % rows.length]!.locationId),
      fc.nat().map((r) => `0${rows[r % rows.length]!.locationId}`),
      fc.constantFrom('aa', 'bb', 'sa', 'zz', '99999999999999999999'),
      fc.constant(null),
    ),
    country: fc.option(fc.constantFrom(...COUNTRIES, 'ZZ'), { nil: null }),
    targetTypes: fc.option(fc.uniqueArray(fc.constantFrom(...TYPES, 'Unknown'), { minLength: 1, maxLength: 3 }).map((t) => t.sort()), { nil: null }),
    parentId: fc.option(fc.nat().map((r) => rows[r % rows.length]!.locationId), { nil: null, freq: 3 }),
  }).filter((c): c is SearchConstraints => c.q !== '' && (c.q !== null || c.parentId !== null));

describe('in-memory FULL search', () => {
  it('pages through exactly the reference ranking, with the same cursor positions, both ways of finding word prefixes', () => {
    fc.assert(
      fc.property(
        fc.array(draft, { minLength: 1, maxLength: 60 }).chain((drafts) => {
          const rows = catalog(drafts);
          return fc.tuple(fc.constant(rows), constraints(rows), fc.integer({ min: 1, max: 6 }), fc.constantFrom(0, 4, 10_000));
        }),
        ([rows, search, limit, gatherLimit]) => {
          const index = new FullIndex(rows, release, null, { gatherLimit });
          const expected = referenceSearch(rows, search);
          let after: CursorPosition | undefined;
          for (let page = 0; page < 50; page++) {
            const remaining = after ? afterCursor(expected, after) : expected;
            const found = index.search(search, limit + 1, after);
            expect(found.map((m) => [index.ids.at(m.row), m.tier])).toEqual(remaining.slice(0, limit + 1).map((r) => [r.row.locationId, r.tier]));
            if (remaining.length <= limit) break;
            const last = found[limit - 1]!;
            after = index.positionOf(last.row, last.tier);
            expect(after).toEqual(positionOf(remaining[limit - 1]!));
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('renders lookups as the objects of queries.ts would serialize', () => {
    fc.assert(
      fc.property(fc.array(draft, { minLength: 1, maxLength: 30 }), (drafts) => {
        const rows = catalog(drafts);
        const index = new FullIndex(rows, release, null);
        const byId = new Map(rows.map((row) => [row.locationId, row]));
        for (const row of rows) {
          const r = index.rowOf(row.locationId)!;
          const chain: FullIndexRow[] = [];
          for (let at: FullIndexRow | undefined = row; at; at = at.parentId === null ? undefined : byId.get(at.parentId)) chain.unshift(at);
          const node = (n: FullIndexRow, depth: number) => ({
            location_id: n.locationId, name: n.name, canonical_name: n.canonicalName, country_code: n.countryCode, target_type: n.targetType,
            hierarchy_precision: depth, ...(n.legacyLevel !== null && { legacy_level: n.legacyLevel }),
          });
          const path = chain.map((n, i) => node(n, i + 1));
          expect(JSON.parse(pathJson(index, r))).toEqual(path);
          expect(locationJson(index, r)).toBe(JSON.stringify({
            location_id: row.locationId, name: row.name, canonical_name: row.canonicalName, country_code: row.countryCode,
            target_type: row.targetType, source_parent_location_id: row.sourceParentId, parent_location_id: row.parentId, path,
            hierarchy_precision: chain.length, ...(row.legacyLevel !== null && { legacy_level: row.legacyLevel }),
            chain_status: row.chainStatus, ...(row.unresolvedParentId !== null && { unresolved_source_parent_location_id: row.unresolvedParentId }),
          }));
          expect(JSON.parse(locationIdsJson(index, r))).toEqual(chain.map((n) => n.locationId).reverse());
        }
      }),
      { numRuns: 200 },
    );
  });

  it('finds ids as written (a leading zero is text), and country records by their code', () => {
    const rows = catalog([
      { name: 'Saana', canonicalSuffix: '', type: 'Country', country: 'SA', parent: null, unresolved: false, level: 1 },
      { name: 'Sab', canonicalSuffix: ',Saana', type: 'City', country: 'SA', parent: 0, unresolved: false, level: 3 },
      { name: 'Nasa', canonicalSuffix: '', type: 'City', country: 'AA', parent: null, unresolved: false, level: 0 },
    ]);
    const index = new FullIndex(rows, release, null);
    const ids = (q: string) => index.search({ q, country: null, targetTypes: null, parentId: null }, 10).map((m) => [index.ids.at(m.row), m.tier]);
    expect(ids('sa')).toEqual([[rows[0]!.locationId, 0], [rows[1]!.locationId, 2], [rows[2]!.locationId, 4]]);
    expect(ids(rows[2]!.locationId)).toEqual([[rows[2]!.locationId, 0]]);
    expect(ids(`000${rows[2]!.locationId}`)).toEqual([]);
    expect(index.rowOf('99999999999999999999')).toBeUndefined();
  });
});
