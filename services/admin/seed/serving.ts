import { uuidV7 } from '../../../platform/ids/uuid-v7.js';
import type { NewEvent } from '../../../platform/events/event-log.js';
import { EventType, type ServeEnvironment } from '../../../schemas/generated/events.js';
import { appendEvents, newEvent } from '../../../commands/append.js';
import { linkClickedEvent } from '../../../commands/clicks/click.js';
import { mintLinkCodes, servedEvents, type ServeRequest } from '../../../commands/serves/serve.js';
import { ACCOUNTS_SHARED, type SeededApplication } from './accounts.js';
import { CATALOG_SHARED, type SeededOffer, type SeededPartner } from './catalog.js';
import { CONVERSION_RATE, RESEND_AFTER_MS, seededPostbacks } from './postbacks.js';
import type { SeedContext } from './seed-context.js';

/** Serves per append (and per round of link codes checked against the read models). */
const BATCH = 2_000;
/** About one card link in four is clicked. */
const CLICK_RATE = 0.25;

/**
 * `serves` cards served across the seeded applications, mostly live (some test and sandbox), with
 * and without placements and locations, built by the same functions the Query route uses; and
 * clicks on some of their links, built like the link origin's. Needs the accounts and catalog
 * phases before it (their records come from `context.shared`).
 */
export async function seedServing(context: SeedContext, serves: number): Promise<void> {
  const { random } = context;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const applications = ((context.shared.get(ACCOUNTS_SHARED.applications) as SeededApplication[] | undefined) ?? []).filter(
    (application) => application.status === 'live' || application.status === 'live_limited',
  );
  const offers = ((context.shared.get(CATALOG_SHARED.offers) as SeededOffer[] | undefined) ?? []).filter(
    (offer) => offer.status === 'active' && !offer.deleted && !offer.delisted,
  );
  if (serves === 0 || applications.length === 0 || offers.length === 0) return;
  const offersById = new Map(offers.map((offer) => [offer.offer_id, offer]));
  const partners = new Map(((context.shared.get(CATALOG_SHARED.partners) as SeededPartner[] | undefined) ?? []).map((partner) => [partner.partner_id, partner]));
  const linkBase = context.runtime.config.linkBase;
  const now = context.now().getTime();

  const bar = context.progress('serves', serves);
  for (let done = 0; done < serves; ) {
    const requests: ServeRequest[] = [];
    let cards = 0;
    while (cards < Math.min(BATCH, serves - done)) {
      const application = pick(applications);
      const size = Math.min(1 + Math.floor(random() * 3), serves - done - cards);
      const draw = random();
      const environment: ServeEnvironment = draw < 0.9 ? 'live' : draw < 0.97 ? 'test' : 'sandbox';
      requests.push({
        application_id: application.application_id,
        placement_id: application.placement_ids.length > 0 && random() < 0.8 ? pick(application.placement_ids) : null,
        environment,
        anonymous: false,
        location_id: random() < 0.5 ? pick(['2840', '21137', '2250', '2276', '2826']) : null,
        offers: Array.from({ length: size }, () => {
          const offer = pick(offers);
          return { offer_id: offer.offer_id, destination_url: offer.destination_url };
        }),
      });
      cards += size;
    }
    const codes = await mintLinkCodes(context.runtime, cards);
    const served: NewEvent[] = [];
    const clicks: NewEvent[] = [];
    const postbacks: NewEvent[] = [];
    let used = 0;
    for (const request of requests) {
      // Served over the last 30 days, at second precision like the route.
      const at = new Date(now - Math.floor(random() * 30 * 86_400_000));
      for (const event of servedEvents(request, { now: at, linkBase, codes: codes.slice(used, used + request.offers.length) })) {
        served.push(newEvent(EventType.OfferServed, event.offer_instance_id, event));
        if (event.link_code === null || event.destination_url === null || random() >= CLICK_RATE) continue;
        const click = linkClickedEvent(
          {
            shape: 'short_code', code: event.link_code, offer_id: event.offer_id, offer_instance_id: event.offer_instance_id,
            application_id: event.application_id, environment: event.environment, destination: event.destination_url,
          },
          { svc_click_id: uuidV7(), clicked_at: new Date(Math.min(now, event.served_at + Math.floor(random() * 3_600_000))), sub_ids: random() < 0.5 ? { sub_id1: `s${Math.floor(random() * 1000)}` } : {} },
        );
        clicks.push(newEvent(EventType.LinkClicked, click.svc_click_id, click));
        const offer = offersById.get(click.offer_id)!;
        const partner = partners.get(offer.partner_id);
        // Only enabled partners with an allowlist can get a postback through the intake.
        if (partner?.enabled && partner.networks.length > 0 && random() < CONVERSION_RATE) {
          // Never after now (a resend comes a minute later): a seeded data set has no postbacks from the future.
          postbacks.push(...seededPostbacks(click, offer, partner, random, new Date(Math.max(click.clicked_at, Math.min(now - RESEND_AFTER_MS, click.clicked_at + Math.floor(random() * 86_400_000))))));
        }
      }
      used += request.offers.length;
    }
    await appendEvents(context.runtime, 'serves', served);
    if (clicks.length > 0) await appendEvents(context.runtime, 'clicks', clicks);
    if (postbacks.length > 0) await appendEvents(context.runtime, 'postbacks', postbacks);
    done += cards;
    bar.tick(cards);
  }
  bar.done();
}
