/**
 * Search ranks ties by type bucket first (broad places before narrow ones), then by folded name,
 * then by id. Raw target types are never rewritten; the bucket is only a sort key. Types not
 * listed here (new ones in a later release) sort last but are still found.
 */
const buckets: Record<number, readonly string[]> = {
  0: ['Country'],
  1: ['State', 'Province', 'Region', 'Autonomous Community', 'Prefecture', 'Governorate', 'Canton',
    'Territory', 'Union Territory', 'Department', 'Okrug', 'Emirate', 'Oblast'],
  2: ['County', 'District', 'Municipality', 'Borough', 'City Region', 'Congressional District', 'TV Region',
    'Sub-District', 'Division', 'Arrondissement'],
  3: ['City'],
  4: ['Neighborhood', 'Airport', 'University', 'National Park'],
  5: ['Postal Code'],
};
export const OTHER_BUCKET = 6;
export const ALL_BUCKETS: readonly number[] = [0, 1, 2, 3, 4, 5, OTHER_BUCKET];

const bucketByType = new Map<string, number>(
  Object.entries(buckets).flatMap(([bucket, types]) => types.map((type) => [type, Number(bucket)] as const)),
);

export function typeBucket(targetType: string): number {
  return bucketByType.get(targetType) ?? OTHER_BUCKET;
}

/** The buckets that can hold any of the given raw types (for a `target_types` filter). */
export function bucketsForTypes(targetTypes: readonly string[]): number[] {
  return [...new Set(targetTypes.map(typeBucket))].sort((a, b) => a - b);
}
