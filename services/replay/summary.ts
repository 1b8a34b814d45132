import type { ReplayReport, TableReport } from '../../platform/projection/replay.js';

const key = (columns: Record<string, unknown>) =>
  Object.entries(columns)
    .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');

function tableLines(tables: TableReport[], compared: boolean): string[] {
  const header = compared ? ['read model', 'table', 'rebuilt rows', 'live rows', 'checksum'] : ['read model', 'table', 'rows', 'checksum'];
  const rows = tables.map((t) =>
    compared
      ? [t.projection, t.table, t.rebuilt.rows, t.live!.rows, t.difference ? 'DIFFERENT' : 'identical']
      : [t.projection, t.table, t.rebuilt.rows, t.rebuilt.md5 || '(empty)'],
  );
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return [header, ...rows].map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
}

/**
 * The replay's outcome for a person: what was rebuilt, how it compares, where it is, and what to
 * do next. `queryable`: the schemas are in a Postgres others can query (not the embedded one).
 */
export function renderSummary(report: ReplayReport, options: { queryable: boolean } = { queryable: true }): string {
  const rate = report.seconds > 0 ? Math.round(report.events / report.seconds) : report.events;
  const lines = [`rebuilt ${report.events} events in ${report.seconds.toFixed(1)} s (${rate} events/s) into schema ${report.schema}${report.kept.length > 0 || report.leftBehind?.includes(report.schema) ? '' : ' (dropped)'}`];
  if (report.mode === 'point-in-time') {
    if (report.events === 0) lines.push('no event was logged at or before that point (the log starts later): the rebuilt read models are empty');
    lines.push(`positions: ${report.positions.map((p) => `${p.topic}:${p.partition}:${p.next}`).filter((value, index, all) => all.indexOf(value) === index).join(',')}`);
  }
  for (const skipped of report.skipped) lines.push(`skipped ${skipped.projection}: --until gives no position for ${skipped.missing.join(', ')}`);
  lines.push('', ...tableLines(report.tables, report.mode === 'compare'));
  for (const table of report.tables.filter((t) => t.difference)) {
    const { only_live: onlyLive, only_rebuilt: onlyRebuilt, keys, key_count: keyCount } = table.difference!;
    lines.push('', `${table.table}: ${onlyLive} row(s) only in the live table, ${onlyRebuilt} only in the rebuilt one; differing keys:`);
    for (const columns of keys) lines.push(`  ${key(columns)}`);
    if (keyCount > keys.length) lines.push(`  … and ${keyCount - keys.length} more (--keys ${keyCount} lists them all)`);
  }
  lines.push('');
  if (report.mode === 'compare') lines.push(report.identical ? 'the rebuilt read models are identical to the live ones' : 'the rebuilt read models DIFFER from the live ones');
  if (report.mode === 'compare' && !report.identical && !report.swapped) {
    const kept = report.kept.length > 0;
    lines.push(
      `a row changed in a table shows its key on both sides. Next: ${kept ? `look at the rebuilt rows beside the live ones in schema ${report.schema}` : 'run again with --keep to look at the rebuilt rows beside the live ones'}, ` +
        'or run again with --swap to make the log\'s version live (with --keep too, the replaced tables are kept until dropped)',
    );
  }
  if (report.swapped) {
    const retired = report.kept.find((schema) => schema.endsWith('_retired'));
    lines.push(`swapped: the rebuilt tables are the live ones now (schema ${report.live})${retired ? `; the replaced ones are in schema ${retired}` : ''}`);
  }
  if (report.mode === 'point-in-time') {
    // The embedded database has no other client: the export below is how to read it.
    if (options.queryable) lines.push(`query it: SELECT * FROM ${report.schema}.${report.tables[0]?.table ?? 'conversions'} LIMIT 10;`);
    // The ledger's tables are the ones the export takes (--read-model).
    if (report.tables.some((table) => table.table === 'conversions')) lines.push(`or export it: npm run export -- --read-model conversions --schema ${report.schema} --out FILE`);
  }
  if (report.kept.length > 0) lines.push(`kept for queries: ${report.kept.join(', ')} (drop with npm run replay -- --drop ${report.kept.join(',')})`);
  if (report.leftBehind) {
    lines.push(`left behind: ${report.leftBehind.join(', ')} could not be dropped (the database failed then); once it answers, drop them with npm run replay -- --drop ${report.leftBehind.join(',')}`);
  }
  return `${lines.join('\n')}\n`;
}
