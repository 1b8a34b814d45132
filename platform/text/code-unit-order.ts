/**
 * Names (projections, topics, migrations) in one order on every machine: by UTF-16 code unit,
 * which for these ASCII names is byte order, as PostgreSQL's COLLATE "C" sorts them.
 * localeCompare follows the process's locale (LANG/LC_ALL): under da_DK "aa" sorts after "z",
 * under et_EE "z" before "t".
 */
export const compareCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
