import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeChains, type SourceRecord } from '../../reference/locations/full/chains.js';

const rec = (id: string, parentId: string | null, active = true): SourceRecord => ({ id, parentId, active });
const byId = (records: SourceRecord[]) => new Map(computeChains(records).map((chain) => [chain.id, chain]));

describe('computeChains', () => {
  it('follows verified parents to a root: COMPLETE', () => {
    const chains = byId([rec('9030359', '21136'), rec('21136', '2840'), rec('2840', null)]);
    expect(chains.get('9030359')).toEqual({
      id: '9030359',
      parentId: '21136',
      status: 'COMPLETE',
      unresolvedParentId: null,
      pathIds: ['2840', '21136', '9030359'],
    });
    expect(chains.get('2840')).toMatchObject({ parentId: null, status: 'COMPLETE', pathIds: ['2840'] });
  });

  it('stops at a missing parent, reporting the raw id where the chain stopped', () => {
    const chains = byId([rec('1', '2'), rec('2', '404')]);
    expect(chains.get('2')).toMatchObject({ parentId: null, status: 'UNRESOLVED_SOURCE_PARENT', unresolvedParentId: '404', pathIds: ['2'] });
    expect(chains.get('1')).toMatchObject({ parentId: '2', status: 'UNRESOLVED_SOURCE_PARENT', unresolvedParentId: '404', pathIds: ['2', '1'] });
  });

  it('does not verify an edge to an inactive parent and leaves inactive records out', () => {
    const chains = byId([rec('1', '2'), rec('2', '3', false), rec('3', null)]);
    expect([...chains.keys()].sort()).toEqual(['1', '3']);
    expect(chains.get('1')).toMatchObject({ parentId: null, status: 'UNRESOLVED_SOURCE_PARENT', unresolvedParentId: '2', pathIds: ['1'] });
  });

  it('drops the edges of a ring but keeps the edges into it', () => {
    const chains = byId([rec('1', '2'), rec('2', '3'), rec('3', '1'), rec('10', '1'), rec('11', '10')]);
    expect(chains.get('1')).toMatchObject({ parentId: null, unresolvedParentId: '2', pathIds: ['1'] });
    expect(chains.get('2')).toMatchObject({ parentId: null, unresolvedParentId: '3', pathIds: ['2'] });
    expect(chains.get('11')).toMatchObject({ parentId: '10', status: 'UNRESOLVED_SOURCE_PARENT', unresolvedParentId: '2', pathIds: ['1', '10', '11'] });
  });

  it('treats a record that names itself as parent as unresolved at itself', () => {
    expect(byId([rec('5', '5')]).get('5')).toMatchObject({ parentId: null, status: 'UNRESOLVED_SOURCE_PARENT', unresolvedParentId: '5', pathIds: ['5'] });
  });

  it('handles a chain 3,000 deep without recursion (every record stores its own path)', () => {
    const records = Array.from({ length: 3_000 }, (_, i) => rec(String(i), i === 0 ? null : String(i - 1)));
    const last = computeChains(records).at(-1)!;
    expect(last.pathIds).toHaveLength(3_000);
    expect(last.status).toBe('COMPLETE');
  });
});

/** Random files: ids 1..n, parents anywhere in 0..n+3 (0 and > n are missing), some inactive, some empty. */
const arbitraryFile = fc.integer({ min: 1, max: 60 }).chain((n) =>
  fc.array(
    fc.record({ parent: fc.option(fc.integer({ min: 0, max: n + 3 }), { nil: null }), active: fc.boolean() }),
    { minLength: n, maxLength: n },
  ).map((rows) => rows.map((row, i) => rec(String(i + 1), row.parent === null ? null : String(row.parent), row.active))),
);

describe('computeChains properties', () => {
  it('holds the chain invariants on any file', () => {
    fc.assert(
      fc.property(arbitraryFile, (records) => {
        const source = new Map(records.map((record) => [record.id, record]));
        const chains = computeChains(records);
        const chainOf = new Map(chains.map((chain) => [chain.id, chain]));
        expect(chains.map((chain) => chain.id)).toEqual(records.filter((r) => r.active).map((r) => r.id));
        for (const chain of chains) {
          const path = chain.pathIds;
          // Ends at self, no repeats (so cycles terminated), every step a verified edge of the source.
          expect(path.at(-1)).toBe(chain.id);
          expect(new Set(path).size).toBe(path.length);
          for (let i = 1; i < path.length; i++) {
            expect(source.get(path[i]!)!.parentId).toBe(path[i - 1]);
            expect(chainOf.get(path[i]!)!.parentId).toBe(path[i - 1]);
          }
          // The path of the parent is the path minus self: precision grows by one per verified edge.
          if (chain.parentId !== null) expect(chainOf.get(chain.parentId)!.pathIds).toEqual(path.slice(0, -1));
          expect(chain.parentId).toBe(path.length > 1 ? path.at(-2) : null);
          for (const id of path) expect(source.get(id)!.active).toBe(true);
          const top = source.get(path[0]!)!;
          if (chain.status === 'COMPLETE') {
            expect(top.parentId).toBeNull();
            expect(chain.unresolvedParentId).toBeNull();
          } else {
            expect(chain.unresolvedParentId).toBe(top.parentId);
            expect(chain.unresolvedParentId).not.toBeNull();
            // Never added to the path, unless the top names itself as its parent.
            if (chain.unresolvedParentId !== top.id) expect(path).not.toContain(chain.unresolvedParentId);
          }
          // An own edge is unverified exactly when the parent is missing or inactive or the edge is on a ring.
          const own = source.get(chain.id)!;
          const parent = own.parentId === null ? undefined : source.get(own.parentId);
          const verifiable = parent !== undefined && parent.active && !isOnRing(records, chain.id);
          expect(chain.parentId).toBe(verifiable ? own.parentId : null);
        }
      }),
      { numRuns: 500 },
    );
  });
});

/** Brute force: does following active existing parents from id come back to id? */
function isOnRing(records: SourceRecord[], id: string): boolean {
  const source = new Map(records.map((record) => [record.id, record]));
  let current = source.get(id)!;
  for (let steps = 0; steps <= records.length; steps++) {
    const parent = current.parentId === null ? undefined : source.get(current.parentId);
    if (parent === undefined || !parent.active) return false;
    if (parent.id === id) return true;
    current = parent;
  }
  return false;
}
