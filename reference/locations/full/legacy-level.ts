/**
 * The LEGACY label a FULL record can carry (`legacy_level`), until the LEGACY registry publishes
 * its own mapping (reference/locations/legacy/), which should replace this one function.
 * It labels, never relabels: `target_type` stays raw.
 *
 * - COUNTRY: a `Country` record at the top of a verified chain.
 * - REGION: a first-level subdivision type whose verified parent is a `Country`.
 * - CITY: a `City` record.
 * Anything else is not representable in the three LEGACY levels and gets no label.
 */
export type LegacyLevel = 'COUNTRY' | 'REGION' | 'CITY';

export interface LegacyLevelInput {
  targetType: string;
  /** Raw target type of the verified parent; null at the top of a verified chain. */
  parentTargetType: string | null;
}

const firstLevelTypes = new Set([
  'State', 'Province', 'Region', 'Autonomous Community', 'Prefecture', 'Governorate', 'Canton',
  'Territory', 'Union Territory', 'Department', 'Okrug', 'Emirate', 'Oblast',
]);

export type LegacyLevelMapping = (input: LegacyLevelInput) => LegacyLevel | null;

export const legacyLevelOf: LegacyLevelMapping = ({ targetType, parentTargetType }) => {
  if (targetType === 'Country') return parentTargetType === null ? 'COUNTRY' : null;
  if (firstLevelTypes.has(targetType)) return parentTargetType === 'Country' ? 'REGION' : null;
  if (targetType === 'City') return 'CITY';
  return null;
};
