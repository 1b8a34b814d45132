import { describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../platform/projection/replay.js';
import { renderSummary } from '../../services/replay/summary.js';

const ledgerTable = (rows: string) => ({ projection: 'ledger', table: 'conversions', rebuilt: { rows, md5: rows === '0' ? '' : 'abc' } });

const pointInTime = (events: number): ReplayReport => ({
  mode: 'point-in-time',
  schema: 'replay_20261101t000000000z',
  live: 'public',
  kept: ['replay_20261101t000000000z'],
  swapped: false,
  positions: [{ projection: 'ledger', topic: 'postbacks', partition: 0, next: String(events) }],
  skipped: [],
  events,
  seconds: 0.1,
  tables: [ledgerTable(String(events))] as ReplayReport['tables'],
});

describe('renderSummary', () => {
  it('offers SQL on the kept schema only where another client can reach the database; the export always', () => {
    expect(renderSummary(pointInTime(5), { queryable: true })).toContain('query it: SELECT * FROM replay_20261101t000000000z.conversions');
    const embedded = renderSummary(pointInTime(5), { queryable: false });
    expect(embedded).not.toContain('query it');
    expect(embedded).toContain('or export it: npm run export -- --read-model conversions --schema replay_20261101t000000000z');
  });

  it('says so when nothing was logged by the point in time', () => {
    expect(renderSummary(pointInTime(0))).toContain('no event was logged at or before that point');
    expect(renderSummary(pointInTime(5))).not.toContain('no event was logged');
  });

  it('says what to do next when the rebuilt read models differ', () => {
    const differs: ReplayReport = {
      ...pointInTime(5),
      mode: 'compare',
      identical: false,
      kept: [],
      tables: [{ ...ledgerTable('5'), live: { rows: '5', md5: 'abd' }, difference: { only_live: 1, only_rebuilt: 1, keys: [{ correlation_id: 'x' }], key_count: 1 } }] as ReplayReport['tables'],
    };
    const text = renderSummary(differs);
    expect(text).toContain('the rebuilt read models DIFFER from the live ones');
    expect(text).toMatch(/Next: run again with --keep .* or run again with --swap/);
    expect(text).not.toContain('more (--keys');
    expect(renderSummary({ ...differs, swapped: true })).not.toContain('Next:');
    // Kept already (--keep): where to look, not to run again with --keep.
    const kept = renderSummary({ ...differs, kept: ['replay_20261101t000000000z'] });
    expect(kept).toMatch(/Next: look at the rebuilt rows beside the live ones in schema replay_20261101t000000000z, or run again with --swap/);
    expect(kept).not.toContain('run again with --keep');
  });

  it('says how many differing keys it left out, and how to list them', () => {
    const table = { ...ledgerTable('20'), live: { rows: '20', md5: 'abd' }, difference: { only_live: 20, only_rebuilt: 20, keys: [{ correlation_id: 'a' }, { correlation_id: 'b' }, { correlation_id: 'c' }], key_count: 20 } };
    const text = renderSummary({ ...pointInTime(20), mode: 'compare', identical: false, tables: [table] as ReplayReport['tables'] });
    expect(text).toContain('  correlation_id=c\n  … and 17 more (--keys 20 lists them all)\n');
  });
});
