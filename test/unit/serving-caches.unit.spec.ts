import { describe, expect, it } from 'vitest';
import { linkCodeReserve } from '../../commands/serves/link-code-reserve.js';
import { reusableBuffers } from '../../platform/http/reusable-buffers.js';
import type { Db, QueryResult } from '../../platform/db/db.js';
import type { AppliedPosition } from '../../platform/projection/offsets.js';
import type { ServedInstanceRow } from '../../projections/serves/evolve.js';
import { openServedCardCache } from '../../services/api/routes/offers/served-card-cache.js';
import { viewOf } from '../../services/api/routes/offers/copy-bytes.js';
import { RequestedIds } from '../../services/api/routes/offers/requested-ids.js';

/**
 * A database that records each statement and answers it with `answer`; a claim of link codes
 * gets the codes `claim` grants (all of them, as an empty link_code_claims table does).
 */
function recordingDb(answer: (text: string, params: unknown[]) => object[] | Error, claim: (codes: string[]) => string[] = (codes) => codes) {
  const statements: { text: string; params: unknown[] }[] = [];
  const db = {
    async query<R>(text: string, params: unknown[] = []): Promise<QueryResult<R>> {
      statements.push({ text, params });
      const rows = text.includes('link_code_claims') ? claim(params[0] as string[]).map((code) => ({ code })) : answer(text, params);
      if (rows instanceof Error) throw rows;
      return { rows: rows as R[], rowCount: rows.length };
    },
  } as unknown as Db;
  return { db, statements };
}

/** Commit notifications by hand: `gap()` is what a dropped listening session sends. */
function fakeWatermarks() {
  const listeners = new Set<(position: AppliedPosition | undefined) => void>();
  return {
    onApplied(listener: (position: AppliedPosition | undefined) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    hearing: () => true,
    commit: (projection: string) => listeners.forEach((listener) => listener({ projection, topic: projection, partition: 0, next: '1' })),
    gap: () => listeners.forEach((listener) => listener(undefined)),
  };
}

describe('the link code reserve', () => {
  it('checks and claims codes in batches and never hands one out twice', async () => {
    const { db, statements } = recordingDb(() => []);
    const reserve = linkCodeReserve({ db }, { batch: 10, now: () => 0 });
    const taken = [...(await reserve.take(3)), ...(await reserve.take(3)), ...(await reserve.take(3))];
    // One refill (served cards, registered links and the claim, one statement each) covered three requests.
    expect(statements.map((s) => s.text.match(/served_instances|tracked_links|link_code_claims/)?.[0]).sort()).toEqual(['link_code_claims', 'served_instances', 'tracked_links']);
    expect(new Set(taken).size).toBe(9);
    for (const code of taken) expect(code).toMatch(/^[A-Za-z0-9]{8}$/);
    await reserve.take(3);
    expect(statements).toHaveLength(6);
  });

  it('does not hand out a code another process has claimed', async () => {
    let first: string[] | undefined;
    const { db } = recordingDb(
      () => [],
      (codes) => {
        // The first claim gets every code but the first, which another process holds.
        if (first) return codes;
        first = codes;
        return codes.slice(1);
      },
    );
    const codes = await linkCodeReserve({ db }, { batch: 4 }).take(4);
    expect(codes).toHaveLength(4);
    expect(codes).not.toContain(first![0]);
    expect(codes).toEqual(expect.arrayContaining(first!.slice(1)));
  });

  it('lets concurrent takers share one refill', async () => {
    const { db, statements } = recordingDb(() => []);
    const reserve = linkCodeReserve({ db }, { batch: 30, now: () => 0 });
    const all = (await Promise.all(Array.from({ length: 10 }, () => reserve.take(3)))).flat();
    expect(statements).toHaveLength(3);
    expect(new Set(all).size).toBe(30);
  });

  it('drops codes checked longer ago than its bound, and checks fresh ones', async () => {
    const { db, statements } = recordingDb(() => []);
    let now = 0;
    const reserve = linkCodeReserve({ db }, { batch: 10, maxAgeMs: 1_000, now: () => now });
    await reserve.take(1);
    now = 999;
    await reserve.take(1);
    expect(statements).toHaveLength(3);
    now = 1_001;
    await reserve.take(1);
    expect(statements).toHaveLength(6);
  });

  it('does not hand out a code a read model already holds', async () => {
    let first: string[] | undefined;
    const { db } = recordingDb((text, params) => {
      const codes = params[0] as string[];
      // The first check finds every code but the last one taken by a served card.
      if (!first && text.includes('served_instances')) {
        first = codes;
        return codes.slice(0, -1).map((link_code) => ({ link_code }));
      }
      return [];
    });
    const reserve = linkCodeReserve({ db }, { batch: 4 });
    const codes = await reserve.take(4);
    expect(codes.filter((code) => first!.slice(0, -1).includes(code))).toEqual([]);
  });

  it('fails the takers when the read models cannot be read, and checks again on the next take', async () => {
    let down = true;
    const { db } = recordingDb(() => (down ? new Error('relation "served_instances" does not exist') : []));
    const reserve = linkCodeReserve({ db }, { batch: 10, now: () => 0 });
    await expect(Promise.all([reserve.take(3), reserve.take(3)])).rejects.toThrow(/served_instances/);
    down = false;
    expect(await reserve.take(3)).toHaveLength(3);
  });
});

const row = (id: string, overrides: Partial<ServedInstanceRow> = {}): ServedInstanceRow => ({
  offer_instance_id: id,
  application_id: 'app',
  placement_id: null,
  offer_id: 'offer',
  served_at: new Date('2026-11-27T01:02:03.456Z'),
  environment: 'live',
  anonymous: false,
  location_id: null,
  link_code: 'AbCd1234',
  link_url: 'https://l.example/AbCd1234',
  destination_url: 'https://shop.example/',
  ...overrides,
});

/** Ids as requests hold them: canonical UUIDs, numbered. */
const uuid = (n: number) => `0192f3a0-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const [A, B, C, X] = [uuid(1), uuid(2), uuid(3), uuid(99)];

describe('the served card cache', () => {
  it('reads each card once and answers it from memory after that; unknown ids are read every time', async () => {
    const known = new Set([A, B]);
    const { db, statements } = recordingDb((_text, params) => (params[0] as string[]).filter((id) => known.has(id)).map((id) => row(id)));
    const cache = openServedCardCache(fakeWatermarks(), { maxEntries: 10 });
    const first = await cache.load(db, [A, B, X]);
    const slot = first.find(A);
    expect(slot).toBeGreaterThanOrEqual(0);
    expect(first.find(X)).toBe(-1);
    const texts = [0, 1, 2, 3].map((text) => {
      const target = Buffer.alloc(first.textBytes(slot, text as 0 | 1 | 2 | 3));
      first.copyText(slot, text as 0 | 1 | 2 | 3, viewOf(target), 0);
      return target.toString('utf8');
    });
    expect(texts).toEqual([A, '2026-11-27T01:02:03Z', 'null', 'https://l.example/AbCd1234']);
    expect([first.applicationId(slot), first.offerId(slot), first.placementId(slot), first.isLive(slot), first.opensLink(slot)]).toEqual(['app', 'offer', null, true, true]);
    expect(cache.find(A)).toBeGreaterThanOrEqual(0);
    expect(cache.find(X)).toBe(-1);
    const again = await cache.load(db, [A, B, X]);
    expect(again.find(B)).toBeGreaterThanOrEqual(0);
    expect(statements.map((s) => s.params[0])).toEqual([[A, B, X], [X]]);
    // A serve applied later is found on the next request.
    known.add(X);
    expect((await cache.load(db, [X])).find(X)).toBeGreaterThanOrEqual(0);
  });

  it('keeps cards across projector commits (a serve never changes) and drops them all on a notification gap', async () => {
    const { db, statements } = recordingDb((_text, params) => (params[0] as string[]).map((id) => row(id)));
    const watermarks = fakeWatermarks();
    const cache = openServedCardCache(watermarks, { maxEntries: 10 });
    await cache.load(db, [A]);
    watermarks.commit('serves');
    watermarks.commit('offers');
    watermarks.commit('accounts');
    await cache.load(db, [A]);
    expect(statements).toHaveLength(1);
    watermarks.gap();
    expect(cache.size).toBe(0);
    expect(cache.find(A)).toBe(-1);
    await cache.load(db, [A]);
    expect(statements).toHaveLength(2);
  });

  it('answers but does not keep a card read while a gap dropped everything', async () => {
    const watermarks = fakeWatermarks();
    const { db } = recordingDb((_text, params) => {
      watermarks.gap();
      return (params[0] as string[]).map((id) => row(id));
    });
    const cache = openServedCardCache(watermarks, { maxEntries: 10 });
    expect((await cache.load(db, [A])).find(A)).toBeGreaterThanOrEqual(0);
    expect(cache.find(A)).toBe(-1);
  });

  it('keeps at most maxEntries cards, the oldest going first, and none with 0', async () => {
    const { db, statements } = recordingDb((_text, params) => (params[0] as string[]).map((id) => row(id)));
    const bounded = openServedCardCache(fakeWatermarks(), { maxEntries: 2 });
    await bounded.load(db, [A, B, C]);
    expect(bounded.size).toBe(2);
    expect(bounded.find(A)).toBe(-1);
    // B in the older table, C in the newer one: both found, each in its own table.
    const [placeOfB, placeOfC] = [bounded.find(B), bounded.find(C)];
    expect([placeOfB, placeOfC].map((place) => bounded.table(place).offerId(bounded.slotOf(place)))).toEqual(['offer', 'offer']);
    expect(bounded.table(placeOfB)).not.toBe(bounded.table(placeOfC));
    // findAll answers the places find does, from either table.
    expect([...bounded.findAll(RequestedIds.fromTexts([C, A, B, C]))]).toEqual([placeOfC, -1, placeOfB, placeOfC]);
    await bounded.load(db, [B, C]);
    expect(statements).toHaveLength(1);
    const none = openServedCardCache(fakeWatermarks(), { maxEntries: 0 });
    expect((await none.load(db, [A])).find(A)).toBeGreaterThanOrEqual(0);
    await none.load(db, [A]);
    expect(none.size).toBe(0);
    expect(statements).toHaveLength(3);
  });

  it('holds many cards whose ids share their last digits, each found by its own id', async () => {
    // The same last eight hex digits: the same hash, so every one is told apart by its whole id.
    const ids = Array.from({ length: 300 }, (_, n) => `${n.toString(16).padStart(8, '0')}-0000-7000-8000-0000deadbeef`);
    const { db } = recordingDb((_text, params) => (params[0] as string[]).filter((id) => id !== ids[299]).map((id) => row(id, { offer_id: `offer-${id.slice(0, 8)}` })));
    const cache = openServedCardCache(fakeWatermarks(), { maxEntries: 1000 });
    await cache.load(db, ids);
    for (const id of ids.slice(0, 299)) {
      const place = cache.find(id);
      expect(cache.table(place).offerId(cache.slotOf(place))).toBe(`offer-${id.slice(0, 8)}`);
    }
    expect(cache.find(ids[299]!)).toBe(-1);
    expect(cache.find(ids[0]!.toUpperCase())).toBe(-1);
    const asked = [...ids].reverse().concat(ids[0]!);
    expect([...cache.findAll(RequestedIds.fromTexts(asked))]).toEqual(asked.map((id) => cache.find(id)));
  });

  it('fails a lookup the read model cannot answer, and keeps nothing from it', async () => {
    const { db } = recordingDb(() => new Error('connection terminated'));
    const cache = openServedCardCache(fakeWatermarks(), { maxEntries: 10 });
    await expect(cache.load(db, [A])).rejects.toThrow(/terminated/);
    expect(cache.size).toBe(0);
  });
});

describe('reusable answer buffers', () => {
  it('hands a released buffer out again, allocates when none is big enough, and keeps at most `keep`, none over maxBytes', () => {
    const huge = reusableBuffers({ keep: 1, minBytes: 64, maxBytes: 128 });
    const big = huge.acquire(129);
    huge.release(big);
    expect(huge.acquire(129)).not.toBe(big);
    const buffers = reusableBuffers({ keep: 1, minBytes: 64, maxBytes: 1024 });
    const first = buffers.acquire(10);
    expect(first.length).toBe(64);
    const larger = buffers.acquire(100);
    expect(larger.length).toBe(100);
    buffers.release(first);
    buffers.release(larger); // over `keep`: dropped
    expect(buffers.acquire(32)).toBe(first);
    buffers.release(first);
    const fresh = buffers.acquire(65);
    expect(fresh).not.toBe(first);
    expect(fresh.length).toBe(65);
    expect(buffers.acquire(64)).toBe(first);
  });
});
