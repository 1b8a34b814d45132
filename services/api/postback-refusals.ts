import type { PostbackReason } from '../../commands/postbacks/rejections.js';
import type { BoundedEntry, BoundedLog } from '../../platform/diagnostics/bounded-log.js';
import { perSourceBudget } from '../../platform/diagnostics/per-source-budget.js';
import { rateLimitKey } from '../../platform/http/client-key.js';
import { redisStreamLog } from '../../platform/diagnostics/redis-stream-log.js';
import { ringBufferLog } from '../../platform/diagnostics/ring-buffer-log.js';
import type { Runtime } from '../../platform/runtime.js';
import { IDENTITY_KINDS, type PostbackLogFilter } from '../../projections/ledger/queries.js';

/**
 * A postback refused before it reached the log (`event_logged: false`): diagnostics for the
 * operator page, never part of the ledger. Every text in it is a sanitized excerpt of what the
 * caller sent (refusal-record.ts), so one entry is a few hundred bytes at most.
 */
export interface PostbackRefusal {
  correlation_id: string;
  /** The path's partner id as sent (not necessarily a partner). */
  partner_id: string;
  source_ip: string;
  method: string;
  content_type: string | null;
  reason: PostbackReason;
  status: number;
  /** RFC 3339, UTC. */
  at: string;
  /** The query string and body as sent, sanitized and cut. */
  excerpt: string;
}

export type PostbackRefusals = BoundedLog<PostbackRefusal>;

/**
 * The diagnostics store of refused postbacks: a capped Redis stream shared by the API processes
 * when REDIS_URL is set (its key carries TOPIC_PREFIX, like the rate limits'), else a ring buffer
 * in this process. Bounded by POSTBACK_REFUSALS_MAX either way, and by
 * POSTBACK_REFUSALS_PER_ADDRESS a minute per source address (an IPv6 one by its /64; per API process).
 */
export function openPostbackRefusals(runtime: Runtime): PostbackRefusals {
  const max = runtime.config.postbackRefusalsMax;
  const lost = runtime.metrics.postbackRefusalsLost;
  const store: PostbackRefusals = runtime.redis
    ? redisStreamLog(runtime.redis, {
      key: `${runtime.config.topicPrefix}postbacks:refused`,
      maxLength: max,
      onLost: (why, count) => lost.inc({ why }, count),
    })
    : ringBufferLog(max);
  return perSourceBudget(store, {
    perMinute: runtime.config.postbackRefusalsPerAddress,
    // An IPv6 caller by its /64, as the rate limits count it: a single subscriber holds a whole
    // /64, and counted by address it had a fresh budget for every one of them.
    sourceOf: (refusal) => rateLimitKey(refusal.source_ip),
    onDropped: () => lost.inc({ why: 'source_over_budget' }),
  });
}

/** Whether a refusal matches the page's filter; ids sent in the body are looked for in the excerpt. */
function matches(refusal: PostbackRefusal, filter: PostbackLogFilter): boolean {
  if (filter.correlation_id !== undefined && refusal.correlation_id !== filter.correlation_id) return false;
  // The partner as the path named it (any case); the filter's id is lowercase.
  if (filter.partner_id !== undefined && refusal.partner_id.toLowerCase() !== filter.partner_id) return false;
  // Both are UTC ISO texts; the bounds carry microseconds (search-params.ts), the refusal's time milliseconds.
  const at = refusal.at.replace(/Z$/, '000Z');
  if (filter.from !== undefined && at < filter.from) return false;
  if (filter.to !== undefined && at >= filter.to) return false;
  if (filter.identity !== undefined && !holdsIdentity(refusal.excerpt, filter.identity, filter.identity_kind)) return false;
  return [filter.click_id, filter.instance_id].every((value) => value === undefined || refusal.excerpt.includes(value));
}

/**
 * Whether an excerpt holds the identity value: anywhere, or with `kind` as that field, written as
 * a JSON body writes it (`"order_id":"A-1"`) or a query string or form does (`order_id=A-1`).
 * Without a kind, also as any of the three fields: a query string holds `ord zq/1` only encoded.
 */
function holdsIdentity(excerpt: string, value: string, kind: string | undefined): boolean {
  if (kind === undefined) return excerpt.includes(value) || IDENTITY_KINDS.some((each) => holdsIdentity(excerpt, value, each));
  if (new RegExp(`"${kind}"\\s*:\\s*${escapeRegExp(JSON.stringify(value))}`).test(excerpt)) return true;
  // The query string and a form body are parameter lists (the excerpt joins them with a space).
  return excerpt.split(/\s+/).some((part) => part.includes('=') && new URLSearchParams(part.replace(/^\?/, '')).getAll(kind).includes(value));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const SCAN_BATCH = 256;

/**
 * A page of the refusals that match, newest first, like the log's pages: `after` an entry id
 * (older ones) or `before` one (newer ones). The store is bounded, so a search reads at most all of it.
 */
export async function searchRefusals(
  refusals: PostbackRefusals,
  filter: PostbackLogFilter,
  page: { after?: string; before?: string; limit: number },
): Promise<{ rows: BoundedEntry<PostbackRefusal>[]; more: boolean }> {
  const found: BoundedEntry<PostbackRefusal>[] = [];
  let cursor = page.before ?? page.after;
  for (;;) {
    const batch = page.before !== undefined ? await refusals.newer(cursor!, SCAN_BATCH) : await refusals.older(cursor, SCAN_BATCH);
    for (const entry of batch) if (matches(entry.value, filter)) found.push(entry);
    if (found.length > page.limit || batch.length < SCAN_BATCH) break;
    cursor = batch.at(-1)!.id;
  }
  const kept = found.slice(0, page.limit);
  return { rows: page.before !== undefined ? kept.reverse() : kept, more: found.length > page.limit };
}
