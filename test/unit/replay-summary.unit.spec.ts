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
      tables: [{ ...ledgerTable('5'), live: { rows: '5', md5: 'abd' }, difference: { only_live: 1, only_rebuilt: 1, keys: [{ correlation_id: 'x' }] } }] as ReplayReport['tables'],
    };
    const text = renderSummary(differs);
    expect(text).toContain('the rebuilt read models DIFFER from the live ones');
    expect(text).toMatch(/Next: run again with --keep .* or with --swap/);
    expect(renderSummary({ ...differs, swapped: true })).not.toContain('Next:');
  });
});
