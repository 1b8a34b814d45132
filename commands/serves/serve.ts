import { uuidV7 } from '../../platform/ids/uuid-v7.js';
import type { AppendedEvent } from '../../platform/events/event-log.js';
import type { Runtime } from '../../platform/runtime.js';
import { linkUrl } from '../../projections/offers/links/parse-link.js';
import { registeredLinkCodes } from '../../projections/offers/links/queries.js';
import { servedLinkCodes } from '../../projections/serves/queries.js';
import { EventType, type OfferServed, type ServeEnvironment } from '../../schemas/generated/events.js';
import { appendEvents, newEvent } from '../append.js';
import { mintCode } from '../offers/link-register.js';
import { claimLinkCodes } from './link-code-claims.js';

/**
 * Serving: one `OfferServed` per card, all cards of one request in one append. The caller (the
 * Query route, the seed) has already resolved who serves (application, placement, environment)
 * and which offers, from the read models; this mints the identities, freezes each offer's
 * destination and appends.
 */
export interface ServeRequest {
  application_id: string;
  placement_id: string | null;
  environment: ServeEnvironment;
  anonymous: boolean;
  location_id: string | null;
  /** In card order; `destination_url` is the offer's destination now (frozen into the serve). */
  offers: { offer_id: string; destination_url: string | null }[];
}

/**
 * Rounds of minting before giving up. 62^8 is about 2.2 * 10^14 codes: with a million links in
 * use a fresh code is taken with odds of about 1 in 200 million, so a second round is already rare.
 */
const MINT_ATTEMPTS = 5;

class LinkCodeExhaustedError extends Error {
  constructor() {
    super('could not mint an unused link code; retry');
    this.name = 'LinkCodeExhaustedError';
  }
}

/** The events of one request; `codes` holds one minted code per offer (ignored for offers without a destination). Pure. */
export function servedEvents(request: ServeRequest, options: { now: Date; linkBase: string; codes: string[]; mintId?: () => string }): OfferServed[] {
  const servedAt = Math.floor(options.now.getTime() / 1000) * 1000;
  const mintId = options.mintId ?? uuidV7;
  return request.offers.map((offer, index) => {
    // A card without a destination has nowhere to send a click: it gets no link at all.
    const code = offer.destination_url === null ? null : options.codes[index]!;
    return {
      offer_instance_id: mintId(),
      application_id: request.application_id,
      placement_id: request.placement_id,
      offer_id: offer.offer_id,
      served_at: servedAt,
      environment: request.environment,
      anonymous: request.anonymous,
      location_id: request.location_id,
      link_code: code,
      link_url: code === null ? null : linkUrl(options.linkBase, { shape: 'short_code', code }),
      destination_url: offer.destination_url,
    };
  });
}

/**
 * `count` fresh 8-character codes (crypto random) that no served card and no registered link
 * holds, each claimed for this caller in link_code_claims: Query hands its cards out once they are
 * logged, before the read model has them, so a code minted at the same moment by another process
 * must lose there, not in the read model. The two checks and the claim go out together, one
 * round trip per round; a code taken anywhere is replaced in the next round.
 */
export async function mintLinkCodes(runtime: Pick<Runtime, 'db'>, count: number, generate: () => string = () => mintCode('short_code')): Promise<string[]> {
  const minted = new Set<string>();
  for (let attempt = 0; attempt < MINT_ATTEMPTS && minted.size < count; attempt += 1) {
    const candidates = new Set<string>();
    while (candidates.size < count - minted.size) {
      const code = generate();
      if (!minted.has(code)) candidates.add(code);
    }
    const codes = [...candidates];
    const [served, registered, claimed] = await Promise.all([servedLinkCodes(runtime.db, codes), registeredLinkCodes(runtime.db, codes), claimLinkCodes(runtime.db, codes)]);
    const taken = new Set([...served, ...registered]);
    for (const code of codes) if (claimed.has(code) && !taken.has(code)) minted.add(code);
  }
  if (minted.size < count) throw new LinkCodeExhaustedError();
  return [...minted];
}

/**
 * The events of one request with fresh identities and link codes, checked against the read
 * models (by `mint`, which a long-running caller backs with a LinkCodeReserve); nothing is
 * appended yet.
 */
export async function prepareServes(
  runtime: Pick<Runtime, 'db' | 'config'>,
  request: ServeRequest,
  now: Date,
  mint: (count: number) => Promise<string[]> = (count) => mintLinkCodes(runtime, count),
): Promise<OfferServed[]> {
  if (request.offers.length === 0) return [];
  const minted = await mint(request.offers.filter((offer) => offer.destination_url !== null).length);
  const codes = request.offers.map((offer) => (offer.destination_url === null ? '' : minted.shift()!));
  return servedEvents(request, { now, linkBase: runtime.config.linkBase, codes });
}

/** Appends the serves of one request in one call; resolves with where each landed, in order (what awaitApplied takes). */
export async function appendServes(runtime: Pick<Runtime, 'eventLog'>, events: OfferServed[]): Promise<AppendedEvent[]> {
  if (events.length === 0) return [];
  return appendEvents(runtime, 'serves', events.map((event) => newEvent(EventType.OfferServed, event.offer_instance_id, event)));
}
