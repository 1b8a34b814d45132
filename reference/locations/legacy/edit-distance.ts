/** Optimal string alignment distance, capped: enough to tell 0, 1, 2 and "more". */
export function editDistance(a: string, b: string, cap = 3): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) { row.push(j); continue; }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((rows[i - 1]?.[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (rows[i - 1]?.[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      row.push(best);
    }
    rows.push(row);
  }
  return Math.min(rows[a.length]?.[b.length] ?? cap + 1, cap + 1);
}

/** The edit distance two folded names or words may differ by and still be the same: 1 under 6 letters, else 2. */
export const allowedEdits = (a: string, b: string) => (Math.min(a.length, b.length) < 6 ? 1 : 2);
