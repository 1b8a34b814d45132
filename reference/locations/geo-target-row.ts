/** The columns of Google Ads' geo-target CSV, in order. */
export const SOURCE_HEADER = ['Criteria ID', 'Name', 'Canonical Name', 'Parent ID', 'Country Code', 'Target Type', 'Status'] as const;

/** One geo-target record as published by the provider (all columns kept as strings). */
export interface SourceRow {
  id: string;
  name: string;
  canonicalName: string;
  /** Null when the source field is empty (a root). */
  parentId: string | null;
  countryCode: string;
  targetType: string;
  status: string;
}

/** One data record's fields, in SOURCE_HEADER order. */
export function sourceRowOf(fields: readonly string[]): SourceRow {
  const [id, name, canonicalName, parentId, countryCode, targetType, status] = fields as [string, string, string, string, string, string, string];
  return { id, name, canonicalName, parentId: parentId === '' ? null : parentId, countryCode, targetType, status };
}
