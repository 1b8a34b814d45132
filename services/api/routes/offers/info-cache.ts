import { findLinkTarget } from '../../../../projections/offers/links/link-target.js';
import { invalidatedCache } from '../../../../platform/cache/invalidated-cache.js';
import type { Sql } from '../../../../platform/db/db.js';
import type { Watermarks } from '../../../../platform/projection/watermarks.js';
import type { TrackedLinkRef } from '../../../../projections/offers/links/parse-link.js';
import { loadOfferInfo, type OfferInfoContent } from '../../../../projections/offers/offer-info.js';

/**
 * In-process caches of what `GET /v1/offers/info` reads, so a repeated read costs no round trip:
 *
 * - the projected public content per offer id (public, hidden or unreadable), emptied by every
 *   commit of the `offers` projection (and by a gap in the commit notifications; nothing read
 *   while the listening session is down is kept), heard before
 *   anyone waiting for that commit wakes: a pause, a deletion or a new snapshot shows on the
 *   first request after its event is applied, in every API process;
 * - the offer a link names, kept only once found and never emptied: a mapping never changes
 *   (a registered code's first registration wins, a served card's link code is unique and a serve
 *   is never rewritten), while an unknown link is read again next time;
 * - the serialized success answer per raw query string, emptied with the contents: the answer
 *   depends on the query alone (never on the caller), so a repeated query costs neither parsing
 *   nor serializing. Only queries up to MAX_ANSWER_QUERY_LENGTH are kept, and the kept queries and
 *   answers hold MAX_ANSWER_CHARS characters at most in all: one offer asked for under many query
 *   strings (a link's own query varies freely) cannot fill the memory.
 *
 * A read that fails is never kept, so the route answers 503 for it and reads again next time.
 */
export interface OfferInfoCache {
  content(sql: Sql, offerId: string): Promise<OfferInfoContent>;
  /** The canonical offer id a tracked link names, undefined when no link has this address. */
  linkedOffer(sql: Sql, link: TrackedLinkRef): Promise<string | undefined>;
  /** The serialized answer to a raw query string; `answer` runs when it is not kept (and what it throws is never kept). */
  answer(rawQuery: string, answer: () => Promise<string>): Promise<string>;
  stats(): Record<'contents' | 'links' | 'answers', { hits: number; misses: number; invalidations: number; size: number }>;
  close(): void;
}

/** Entries each cache keeps at most (the oldest go first). */
const MAX_ENTRIES = 50_000;
/** Longer query strings are answered without keeping the answer (a link is far shorter). */
const MAX_ANSWER_QUERY_LENGTH = 2_048;
/** Characters of query strings and answers kept in all (about 64 MiB at most). */
const MAX_ANSWER_CHARS = 32 * 1024 * 1024;

export function openOfferInfoCache(watermarks: Pick<Watermarks, 'onApplied' | 'hearing'>, options: { maxEntries?: number; maxAnswerChars?: number } = {}): OfferInfoCache {
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  const contents = invalidatedCache<string, OfferInfoContent>({ maxEntries, keepWhile: () => watermarks.hearing() });
  const links = invalidatedCache<string, string | null>({ maxEntries });
  const answers = invalidatedCache<string, string>({
    maxEntries,
    maxWeight: options.maxAnswerChars ?? MAX_ANSWER_CHARS,
    weigh: (rawQuery, answer) => rawQuery.length + answer.length,
    keepWhile: () => watermarks.hearing(),
  });
  const unsubscribe = watermarks.onApplied((position) => {
    if (position && position.projection !== 'offers') return;
    contents.invalidate();
    answers.invalidate();
  });

  return {
    content: (sql, offerId) => contents.get(offerId, () => loadOfferInfo(sql, offerId)),
    async linkedOffer(sql, link) {
      const offerId = await links.get(
        `${link.shape}:${link.code}`,
        async () => (await findLinkTarget(sql, link))?.offer_id ?? null,
        (found) => found !== null,
      );
      return offerId ?? undefined;
    },
    answer: (rawQuery, answer) => (rawQuery.length > MAX_ANSWER_QUERY_LENGTH ? answer() : answers.get(rawQuery, answer)),
    stats: () => ({
      contents: { ...contents.stats, size: contents.size },
      links: { ...links.stats, size: links.size },
      answers: { ...answers.stats, size: answers.size },
    }),
    close: unsubscribe,
  };
}
