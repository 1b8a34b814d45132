/** A canonical UUID: lowercase hexadecimal 8-4-4-4-12, nothing around it (no braces, no urn:uuid:). */
export const CANONICAL_UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
export const CANONICAL_UUID = new RegExp(CANONICAL_UUID_PATTERN);

/** Any hexadecimal 8-4-4-4-12 UUID in either case, nothing around it: what a route reads before lowercasing it. */
export const ANY_CASE_UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const ANY_CASE_UUID = new RegExp(ANY_CASE_UUID_PATTERN);
