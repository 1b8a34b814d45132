/**
 * A function that returns one shared copy of each distinct string it is given. Rows read from the
 * database each arrive with their own copies of values that repeat on many rows (country codes,
 * types, statuses); an index keeps one.
 */
export function stringInterner(): <T extends string>(value: T) => T {
  const held = new Map<string, string>();
  return <T extends string>(value: T): T => {
    const known = held.get(value) as T | undefined;
    if (known !== undefined) return known;
    held.set(value, value);
    return value;
  };
}
