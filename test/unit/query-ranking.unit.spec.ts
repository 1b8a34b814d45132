import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { comparePayout, rankCandidates, type Candidate } from '../../services/api/routes/offers/query-ranking.js';

type Amounts = { cpa?: number | string; cps?: number | string };
const candidate = (offer_id: string, { cpa, cps, ...options }: Omit<Partial<Candidate>, 'cpa' | 'cps'> & Amounts = {}): Candidate => ({
  offer_id, test_only: false, category: 'c', rules: [], destination_url: null,
  offer: { offer_id, offer_info: { status: 'active' } }, ...options,
  cpa: cpa === undefined ? null : new Decimal(cpa),
  cps: cps === undefined ? null : new Decimal(cps),
});

const ids = (list: Candidate[]) => list.map((c) => c.offer_id);
const request = { environment: 'live' as const, chain: undefined, categories: [] as string[], limit: 10 };

describe('Query ranking', () => {
  it('orders by CPA amount, then CPS rate, then offer id', () => {
    const list = [
      candidate('e', { cps: 30 }), candidate('d', { cpa: 1 }), candidate('c', { cpa: 12.5 }),
      candidate('b', { cpa: 12.5 }), candidate('a'), candidate('f', { cps: 7.5 }), candidate('g', { cpa: 1, cps: 50 }),
    ].sort(comparePayout);
    expect(ids(list)).toEqual(['b', 'c', 'g', 'd', 'e', 'f', 'a']);
  });

  it('compares amounts exactly, beyond the digits a JS number holds', () => {
    // As numbers both are 123456789012.12345679: equal, and the offer id would decide.
    const list = [candidate('a', { cpa: '123456789012.12345678' }), candidate('b', { cpa: '123456789012.12345679' })].sort(comparePayout);
    expect(ids(list)).toEqual(['b', 'a']);
  });

  it('puts offers of a wanted category first, each group in payout order, up to the limit', () => {
    const byPayout = [candidate('a', { cpa: 9 }), candidate('b', { cpa: 8, category: 'x' }), candidate('c', { cpa: 7 }), candidate('d', { cpa: 6, category: 'x' })];
    expect(ids(rankCandidates(byPayout, { ...request, categories: ['x'] }))).toEqual(['b', 'd', 'a', 'c']);
    expect(ids(rankCandidates(byPayout, { ...request, categories: ['x'], limit: 3 }))).toEqual(['b', 'd', 'a']);
    // Others that fill the limit before a wanted one comes do not end the search: it still ranks first.
    expect(ids(rankCandidates(byPayout, { ...request, categories: ['x'], limit: 1 }))).toEqual(['b']);
    expect(ids(rankCandidates(byPayout, { ...request, limit: 2 }))).toEqual(['a', 'b']);
  });

  it('serves test-only offers to test serves only', () => {
    const byPayout = [candidate('t', { test_only: true }), candidate('p')];
    expect(ids(rankCandidates(byPayout, request))).toEqual(['p']);
    expect(ids(rankCandidates(byPayout, { ...request, environment: 'sandbox' }))).toEqual(['p']);
    expect(ids(rankCandidates(byPayout, { ...request, environment: 'test' }))).toEqual(['t', 'p']);
  });

  it('filters by targeting before ranking: an unknown location gets only untargeted offers', () => {
    const byPayout = [
      candidate('us', { cpa: 9, rules: [{ include: ['2840'], exclude: [] }] }),
      candidate('not-ca', { cpa: 8, rules: [{ include: [], exclude: ['21137'] }] }),
      candidate('any', { cpa: 1 }),
    ];
    expect(ids(rankCandidates(byPayout, { ...request, chain: ['21137', '2840'] }))).toEqual(['us', 'any']);
    expect(ids(rankCandidates(byPayout, { ...request, chain: ['2250'] }))).toEqual(['not-ca', 'any']);
    expect(ids(rankCandidates(byPayout, request))).toEqual(['any']);
  });
});
