import { describe, expect, it } from 'vitest';
import { invalidatedCache } from '../../platform/cache/invalidated-cache.js';
import type { QueryResult, Sql } from '../../platform/db/db.js';
import type { AppliedPosition } from '../../platform/projection/offsets.js';
import { openReadCaches } from '../../services/api/read-cache.js';

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
};

describe('invalidatedCache', () => {
  it('loads only the missing keys, once, in one call, and answers from memory afterwards', async () => {
    const cache = invalidatedCache<string, number>({ maxEntries: 10 });
    const calls: string[][] = [];
    const load = async (missing: string[]) => {
      calls.push(missing);
      return new Map(missing.map((key) => [key, key.length]));
    };
    expect(await cache.getMany(['a', 'bb', 'a'], load)).toEqual(new Map([['a', 1], ['bb', 2]]));
    expect(await cache.getMany(['bb', 'ccc'], load)).toEqual(new Map([['bb', 2], ['ccc', 3]]));
    expect(calls).toEqual([['a', 'bb'], ['ccc']]);
    expect(cache.stats).toMatchObject({ hits: 1, misses: 3 });
  });

  it('forgets everything on invalidate, and only then', async () => {
    const cache = invalidatedCache<string, number>({ maxEntries: 10 });
    let value = 1;
    const load = async () => value;
    expect(await cache.get('k', load)).toBe(1);
    value = 2;
    expect(await cache.get('k', load)).toBe(1);
    cache.invalidate();
    expect(cache.size).toBe(0);
    expect(await cache.get('k', load)).toBe(2);
  });

  it('answers a load that straddles an invalidation but does not keep it', async () => {
    const cache = invalidatedCache<string, string>({ maxEntries: 10 });
    const slow = deferred<string>();
    const pending = cache.get('k', () => slow.promise);
    cache.invalidate();
    slow.resolve('read before the change');
    expect(await pending).toBe('read before the change');
    expect(await cache.get('k', async () => 'read after the change')).toBe('read after the change');

    const slowMany = deferred<Map<string, string>>();
    const pendingMany = cache.getMany(['x'], () => slowMany.promise);
    cache.invalidate();
    slowMany.resolve(new Map([['x', 'old']]));
    expect(await pendingMany).toEqual(new Map([['x', 'old']]));
    expect(await cache.getMany(['x'], async () => new Map([['x', 'new']]))).toEqual(new Map([['x', 'new']]));
  });

  it('peeks at kept values only: nothing is loaded, and an invalidation empties what peek sees', async () => {
    const cache = invalidatedCache<string, number>({ maxEntries: 10 });
    expect(cache.peek('a')).toBeUndefined();
    await cache.getMany(['a'], async (missing) => new Map(missing.map((key) => [key, 1])));
    expect(cache.peek('a')).toBe(1);
    expect(cache.peek('b')).toBeUndefined();
    cache.invalidate();
    expect(cache.peek('a')).toBeUndefined();
  });

  it('does not keep values its caller says not to keep', async () => {
    const cache = invalidatedCache<string, string>({ maxEntries: 10 });
    await cache.get('k', async () => 'unknown', (value) => value !== 'unknown');
    expect(cache.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const cache = invalidatedCache<number, number>({ maxEntries: 3 });
    for (const key of [1, 2, 3, 4]) await cache.get(key, async () => key);
    expect(cache.size).toBe(3);
    let reloaded = false;
    await cache.get(1, async () => ((reloaded = true), 1));
    expect(reloaded).toBe(true);
  });

  it('keeps nothing with maxEntries 0: every read loads', async () => {
    const cache = invalidatedCache<string, number>({ maxEntries: 0 });
    let loads = 0;
    for (let round = 0; round < 3; round += 1) await cache.get('k', async () => ++loads);
    await cache.getMany(['a', 'b'], async (missing) => new Map(missing.map((key) => [key, ++loads])));
    expect(cache.size).toBe(0);
    expect(loads).toBe(5);
  });

  it('refuses a load that does not answer every key', async () => {
    const cache = invalidatedCache<string, number>({ maxEntries: 3 });
    await expect(cache.getMany(['a', 'b'], async () => new Map([['a', 1]]))).rejects.toThrow(/every key/);
  });
});

describe('openReadCaches', () => {
  /** A read model stand-in that counts the statements it answers, by table. */
  function fakeSql() {
    const reads: Record<string, number> = { account_api_keys: 0, account_placements: 0, offers: 0 };
    const sql: Sql = {
      async query<R>(text: string, params?: unknown[]): Promise<QueryResult<R>> {
        const table = Object.keys(reads).find((name) => text.includes(`FROM ${name}`))!;
        reads[table]! += 1;
        const ids = (params?.[0] ?? []) as string[];
        if (table === 'account_placements') return { rows: ids.map((placement_id) => ({ placement_id, application_id: 'a', name: 'p', status: 'active' })) as R[], rowCount: ids.length };
        return { rows: [], rowCount: 0 };
      },
      exec: async () => {},
      copyFrom: async () => {},
    };
    return { sql, reads };
  }
  function fakeWatermarks() {
    let listener: (position: AppliedPosition | undefined) => void = () => {};
    let hearing = true;
    return {
      onApplied(next: typeof listener) {
        listener = next;
        return () => (listener = () => {});
      },
      hearing: () => hearing,
      /** The listening session dropped (false: a gap, heard nothing from then on) or reopened (true: a gap again). */
      listening(open: boolean) {
        hearing = open;
        listener(undefined);
      },
      commit: (projection: string | undefined) => listener(projection === undefined ? undefined : { projection, topic: 't', partition: 0, next: '1' }),
    };
  }

  /** Caches over fake reads and notifications, and one read of placement p1 and offer o1. */
  function placementAndOfferReads() {
    const { sql, reads } = fakeSql();
    const watermarks = fakeWatermarks();
    const caches = openReadCaches(watermarks);
    const readAll = async () => {
      await caches.placements(sql, ['p1']);
      await caches.offers(sql, ['o1']);
    };
    return { reads, watermarks, caches, readAll };
  }

  it('empties the key and placement caches on accounts commits, the offer cache on offers commits, all of them on a gap, none on others', async () => {
    const { reads, watermarks, caches, readAll } = placementAndOfferReads();
    await readAll();
    await readAll();
    expect(reads).toMatchObject({ account_placements: 1, offers: 1 });
    watermarks.commit('serves');
    await readAll();
    expect(reads).toMatchObject({ account_placements: 1, offers: 1 });
    expect(caches.placementIfKept('p1')).toMatchObject({ placement_id: 'p1' });
    expect(caches.offerIfKept('o1')).toBeNull();
    watermarks.commit('accounts');
    // What the instance route peeks at goes with the commit, before anything is read again.
    expect(caches.placementIfKept('p1')).toBeUndefined();
    expect(caches.offerIfKept('o1')).toBeNull();
    await readAll();
    expect(reads).toMatchObject({ account_placements: 2, offers: 1 });
    watermarks.commit('offers');
    expect(caches.offerIfKept('o1')).toBeUndefined();
    await readAll();
    expect(reads).toMatchObject({ account_placements: 2, offers: 2 });
    watermarks.commit(undefined);
    await readAll();
    expect(reads).toMatchObject({ account_placements: 3, offers: 3 });
    caches.close();
    watermarks.commit('accounts');
    await readAll();
    expect(reads).toMatchObject({ account_placements: 3, offers: 3 });
  });

  it('keeps nothing it reads while the listening session is down (a commit then is not heard), and keeps again once it is back', async () => {
    const { reads, watermarks, caches, readAll } = placementAndOfferReads();
    watermarks.listening(false);
    await readAll();
    await readAll();
    expect(reads).toMatchObject({ account_placements: 2, offers: 2 });
    expect(caches.placementIfKept('p1')).toBeUndefined();
    watermarks.listening(true);
    await readAll();
    await readAll();
    expect(reads).toMatchObject({ account_placements: 3, offers: 3 });
  });

  it('answers null for unknown ids and keeps that answer until the next commit', async () => {
    const { sql, reads } = fakeSql();
    const caches = openReadCaches(fakeWatermarks());
    expect(await caches.offers(sql, ['missing'])).toEqual(new Map([['missing', null]]));
    await caches.offers(sql, ['missing']);
    expect(reads.offers).toBe(1);
  });

  it('never keeps unknown keys (each one is looked up again)', async () => {
    const { sql, reads } = fakeSql();
    const caches = openReadCaches(fakeWatermarks());
    const presented = `svc_live_${'x'.repeat(40)}`;
    expect(await caches.lookupKey(sql, 'secret-secret-secret-secret-secret', presented)).toEqual({ kind: 'unknown' });
    await caches.lookupKey(sql, 'secret-secret-secret-secret-secret', presented);
    expect(reads.account_api_keys).toBe(2);
  });
});
