import type { Sql } from '../../../platform/db/db.js';
import type { CursorPosition } from './cursor.js';
import { fitsBigint, locationColumns, STORED_COLUMNS, toLocation, type FullLocation, type LocationRow } from './queries.js';
import { prefixUpperBound } from './search-text.js';
import { ALL_BUCKETS, bucketsForTypes } from './type-buckets.js';

/**
 * Ranked FULL search. Matches fall in tiers, best first; a row belongs to its best tier only:
 *   0 EXACT        q is the location_id, or q is the country code of a top-level record (no
 *                  source parent: countries and the territories listed at top level)
 *   1 NAME_EXACT   folded name equals q
 *   2 NAME_PREFIX  folded name starts with q
 *   3 WORD_PREFIX  a word of name or canonical_name starts with q
 *   4 SUBSTRING    name or canonical_name contains q (never text across the two: text_norm
 *                  keeps them apart with a separator no folded q holds)
 *   5 COUNTRY      q is the record's country code (every record of that country)
 * Without q (browsing a parent's children) every row is tier 0. Inside a tier, rows are ordered by
 * type bucket (countries, first-level subdivisions, counties/districts, cities, neighborhoods/
 * airports/…, postal codes, other types), then folded name, then id. Each (tier, bucket) is one
 * ordered index range read that stops at the page size; tiers run in stages so the costly ones run
 * only when the cheap ones did not fill the page.
 */
export interface SearchConstraints {
  /** Folded q (search-text.ts), null when browsing children. */
  q: string | null;
  country: string | null;
  /** Exact raw target types, null for all. */
  targetTypes: string[] | null;
  parentId: string | null;
}

export interface SearchPage {
  locations: FullLocation[];
  /** Position of the last location when another page exists. */
  next?: CursorPosition;
}


/** Numbered parameters of one statement (PostgreSQL rejects parameters a statement does not use). */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

interface Tier {
  tier: number;
  /** Condition on `l` for one bucket (null: the tier has no rows in that bucket); adds the parameters it uses. */
  where(p: Params, bucket: number): string | null;
}

function tiersFor(q: string | null): Tier[][] {
  if (q === null) return [[{ tier: 0, where: () => 'true' }]];
  // An id as written, without leading zeros: 02840 is not the id 2840 (the location route says 404 for it too).
  const id = /^(?:0|[1-9][0-9]*)$/.test(q) && fitsBigint(q) ? q : undefined;
  const countryCode = /^[a-z]{2}$/.test(q) ? q.toUpperCase() : undefined;
  // Top-level territories have other types (Puerto Rico is a `Region`), so every bucket can hold one.
  const exact = (p: Params, _bucket: number) => {
    const parts: string[] = [];
    if (id) parts.push(`l.location_id = ${p.add(id)}`);
    if (countryCode) parts.push(`(l.source_parent_location_id IS NULL AND l.country_code = ${p.add(countryCode)})`);
    return parts.length === 0 ? null : `(${parts.join(' OR ')})`;
  };
  const notExact = (p: Params, bucket: number) => {
    const condition = exact(p, bucket);
    return condition === null ? '' : `AND NOT ${condition}`;
  };
  const upper = prefixUpperBound(q);

  const cheap: Tier[] = [
    ...(id || countryCode ? [{ tier: 0, where: exact }] : []),
    { tier: 1, where: (p, bucket) => `l.name_norm = ${p.add(q)} ${notExact(p, bucket)}` },
    { tier: 2, where: (p, bucket) => `l.name_norm > ${p.add(q)} AND l.name_norm < ${p.add(upper)} ${notExact(p, bucket)}` },
  ];
  // text_norm is ' name | canonical ' with single spaces between words, so " q" occurs in it
  // exactly where a word starts with q. Folded q holds only letters, digits and single spaces (no
  // LIKE wildcard or escape character, no separator), so it goes into the pattern unescaped.
  const wordPrefix: Tier = {
    tier: 3,
    where: (p, bucket) =>
      `l.text_norm LIKE ${p.add(`% ${q}%`)}
       AND NOT (l.name_norm >= ${p.add(q)} AND l.name_norm < ${p.add(upper)}) ${notExact(p, bucket)}`,
  };
  const scans: Tier[] = [
    { tier: 4, where: (p, bucket) => `l.text_norm LIKE ${p.add(`%${q}%`)} AND l.text_norm NOT LIKE ${p.add(`% ${q}%`)} ${notExact(p, bucket)}` },
    ...(countryCode
      ? [{ tier: 5, where: (p: Params, bucket: number) => `l.country_code = ${p.add(countryCode)} AND l.text_norm NOT LIKE ${p.add(`%${q}%`)} ${notExact(p, bucket)}` }]
      : []),
  ];
  return [cheap, [wordPrefix], scans];
}

type FoundRow = LocationRow & { tier: number; type_bucket: number; name_norm: string };

/** One page of matches after `after` (exclusive), best first. */
export async function searchLocations(
  sql: Sql,
  releaseId: number,
  constraints: SearchConstraints,
  limit: number,
  after?: CursorPosition,
): Promise<SearchPage> {
  if (constraints.parentId !== null && !fitsBigint(constraints.parentId)) return { locations: [] };
  const buckets = constraints.targetTypes === null ? ALL_BUCKETS : bucketsForTypes(constraints.targetTypes);
  const filters = (p: Params) =>
    [
      constraints.country !== null ? `AND l.country_code = ${p.add(constraints.country)}` : '',
      constraints.targetTypes !== null ? `AND l.target_type = ANY(${p.add(constraints.targetTypes)}::text[])` : '',
      constraints.parentId !== null ? `AND l.parent_location_id = ${p.add(constraints.parentId)}` : '',
    ].join(' ');

  const found: FoundRow[] = [];
  for (const stage of tiersFor(constraints.q)) {
    const need = limit + 1 - found.length;
    if (need <= 0) break;
    const p = new Params();
    const release = p.add(releaseId);
    const branches: string[] = [];
    for (const { tier, where } of stage) {
      if (after && tier < after.tier) continue;
      for (const bucket of buckets) {
        if (after && tier === after.tier && bucket < after.bucket) continue;
        const keyset =
          after && tier === after.tier && bucket === after.bucket
            ? `AND (l.name_norm, l.location_id) > (${p.add(after.name)}, ${p.add(after.id)}::bigint)`
            : '';
        const condition = where(p, bucket);
        if (condition === null) continue;
        branches.push(
          `(SELECT ${STORED_COLUMNS}, l.type_bucket, l.name_norm, ${tier} AS tier FROM geo_full_locations l
             WHERE l.release_id = ${release} AND l.type_bucket = ${bucket} AND ${condition} ${filters(p)} ${keyset}
             ORDER BY l.name_norm, l.location_id LIMIT ${need})`,
        );
      }
    }
    if (branches.length === 0) continue;
    const { rows } = await sql.query<FoundRow>(
      `SELECT s.tier, s.type_bucket, s.name_norm, ${locationColumns('s')}
         FROM (${branches.join(' UNION ALL ')}) s
        ORDER BY s.tier, s.type_bucket, s.name_norm, s.location_id LIMIT ${need}`,
      p.values,
    );
    found.push(...rows);
  }
  const page = found.slice(0, limit);
  const last = page.at(-1);
  return {
    locations: page.map(toLocation),
    ...(found.length > limit && last && { next: { tier: last.tier, bucket: last.type_bucket, name: last.name_norm, id: last.location_id } }),
  };
}
