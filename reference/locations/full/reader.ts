import type { Db } from '../../../platform/db/db.js';
import type { CursorPosition } from './cursor.js';
import { currentRelease, findLocation, type CurrentRelease, type FullLocation } from './queries.js';
import { searchLocations, type SearchConstraints, type SearchPage } from './search.js';

/**
 * Cached reads of the FULL catalog for the API. A release never changes once loaded, so results
 * are cached by release id in small in-process LRUs. Which release is current is re-read at most
 * once a second (RELEASE_TTL_MS): after a new load, a process may answer from the previous release
 * for up to that long, never a mix of the two. A missing release is not cached, so the routes
 * serve as soon as a load commits.
 */
const RELEASE_TTL_MS = 1_000;

export class Lru<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly capacity: number) {}
  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Re-insert: Map iteration order is insertion order, so the first key is the least recent.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
  get size() {
    return this.entries.size;
  }
}

export interface FullReader {
  release(options?: { fresh?: boolean }): Promise<CurrentRelease | undefined>;
  location(release: CurrentRelease, id: string): Promise<FullLocation | undefined>;
  search(release: CurrentRelease, key: string, constraints: SearchConstraints, limit: number, after?: CursorPosition): Promise<SearchPage>;
}

export function createFullReader(db: Db, { locations = 20_000, pages = 2_000 } = {}): FullReader {
  let cached: { release: CurrentRelease; until: number } | undefined;
  const locationCache = new Lru<FullLocation | null>(locations);
  const pageCache = new Lru<SearchPage>(pages);
  return {
    async release({ fresh = false } = {}) {
      const now = Date.now();
      if (!fresh && cached && cached.until > now) return cached.release;
      const release = await currentRelease(db);
      cached = release && { release, until: now + RELEASE_TTL_MS };
      return release;
    },
    async location(release, id) {
      const key = `${release.releaseId}:${id}`;
      const hit = locationCache.get(key);
      if (hit !== undefined) return hit ?? undefined;
      const location = await findLocation(db, release.releaseId, id);
      locationCache.set(key, location ?? null);
      return location;
    },
    async search(release, key, constraints, limit, after) {
      const cacheKey = `${release.releaseId}:${key}:${limit}:${after ? JSON.stringify(after) : ''}`;
      const hit = pageCache.get(cacheKey);
      if (hit) return hit;
      const page = await searchLocations(db, release.releaseId, constraints, limit, after);
      pageCache.set(cacheKey, page);
      return page;
    },
  };
}

const readers = new WeakMap<Db, FullReader>();
/** One reader (and cache) per database handle. */
export function fullReaderFor(db: Db): FullReader {
  let reader = readers.get(db);
  if (!reader) readers.set(db, (reader = createFullReader(db)));
  return reader;
}
