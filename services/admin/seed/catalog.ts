import { appendEvents } from '../../../commands/append.js';
import { offerEvent } from '../../../commands/offers/events.js';
import { linkRegisteredEvent } from '../../../commands/offers/link-register.js';
import { snapshotPublishedEvent } from '../../../commands/offers/publish-snapshot.js';
import { targetingRules } from '../../../commands/offers/targeting.js';
import { offerUpsertedEvent, offerUpsertInput, type OfferUpsertInput } from '../../../commands/offers/upsert.js';
import { partnerConfiguredEvent, partnerEvent } from '../../../commands/partners/configure.js';
import { validateInput } from '../../../commands/validate.js';
import type { NewEvent } from '../../../platform/events/event-log.js';
import { currentLocationIds } from '../../../reference/locations/full/queries.js';
import { GEO_LOAD_COMMAND } from '../../../reference/locations/how-to-load.js';
import type { OfferDetailsDocument } from '../../../schemas/documents/offer.js';
import { EventType } from '../../../schemas/generated/events.js';
import { ACCOUNTS_SHARED, type SeededApplication } from './accounts.js';
import type { SeedContext } from './seed-context.js';

/** What this phase leaves in `context.shared`, by key, for later phases (serves, postbacks). */
export const CATALOG_SHARED = {
  /** SeededPartner[] */
  partners: 'partners',
  /** SeededOffer[] */
  offers: 'offers',
  /** SeededLink[] */
  links: 'links',
} as const;

export interface SeededPartner { partner_id: string; enabled: boolean; networks: string[]; goal_mappings: Record<string, string> }
export interface SeededOffer { offer_id: string; partner_id: string; kind: 'local' | 'remote'; status: string; deleted: boolean; delisted: boolean; test_only: boolean; has_details: boolean; targeted: boolean; destination_url: string | null; goals: OfferDetailsDocument['goals'] }
export interface SeededLink { offer_id: string; shape: string; code: string; offer_instance_id: string | null; application_id: string | null }

const STATUSES = ['active', 'paused', 'pending', 'rejected', 'expired'] as const;
const LANGUAGES = ['en', 'en-US', 'de', 'fr', 'es', 'ja', 'pt-BR', null] as const;
const GOALS = [['install', 'install'], ['registration', 'sign_up'], ['sale', 'purchase'], ['first_deposit', 'deposit'], ['level_10', 'level_up']] as const;
const BRANDS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Soylent', 'Hooli', 'Vandelay', 'Stark', 'Wayne', 'Tyrell'];
const CATEGORIES = ['games', 'shopping', 'finance', 'travel', 'streaming', 'food', 'health'];
const NETWORKS_V4 = ['192.0.2.', '198.51.100.', '203.0.113.'];
const DAY = 86_400_000;
/** Roughly one remote snapshot in this many is stored malformed, so the 503 path has data. */
const MALFORMED_EVERY = 150;
const BATCH = 500;

/**
 * Where an offer's cards lead, by its index (no random draw, so a seed value still gives the data
 * set it gave before destinations existed): web URLs with and without click macros, some app deep
 * links, and a few offers with none.
 */
function destinationOf(index: number): string | undefined {
  if (index % 10 === 9) return `shopapp://offer/${index}`;
  if (index % 25 === 24) return undefined;
  return index % 2 === 0 ? `https://shop.example.test/o/${index}?click={svc_click_id}&sub={sub_id1}` : `https://shop.example.test/o/${index}`;
}

/** Seeds partners, offers of every kind, status and flag, remote snapshots and tracked links. */
export async function seedCatalog(context: SeedContext): Promise<void> {
  const { random } = context;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const now = context.now();
  const ago = (maxDays: number) => new Date(now.getTime() - Math.floor(random() * maxDays * DAY));
  const locations = await catalogLocationIds(context);
  // Links may name the application they were issued to; none when the accounts phase made none.
  const applications = ((context.shared.get(ACCOUNTS_SHARED.applications) as SeededApplication[] | undefined) ?? []).map((a) => a.application_id);

  const partnerEvents: NewEvent[] = [];
  const partners: SeededPartner[] = [];
  for (let index = 0; index < context.size.partners; index++) {
    const mappings = GOALS.filter(() => chance(0.7)).map(([goal, name]) => ({ event_name: name, goal_event: goal }));
    const networks = [`${pick(NETWORKS_V4)}${16 * Math.floor(random() * 16)}/28`, ...(chance(0.5) ? [`2001:db8:${(index % 65535).toString(16)}::/48`] : [])];
    // The first partner is always enabled so every offer route has a working supplier.
    const value = partnerConfiguredEvent({ name: `${pick(BRANDS)} Network ${index + 1}`, enabled: index === 0 || chance(0.85), source_ip_allowlist: networks, goal_mappings: mappings }, ago(90));
    partners.push({ partner_id: value.partner_id, enabled: value.enabled, networks: value.source_ip_allowlist, goal_mappings: Object.fromEntries(mappings.map((m) => [m.event_name, m.goal_event])) });
    partnerEvents.push(partnerEvent(value));
  }

  const offerEvents: NewEvent[] = [];
  const offers: SeededOffer[] = [];
  const links: SeededLink[] = [];
  for (let index = 0; index < context.size.offers; index++) {
    // The first ten offers cover every (kind, status) pair; flags come early too.
    const kind = index < 10 ? (index < 5 ? 'local' : 'remote') : chance(0.35) ? 'remote' : 'local';
    const status = index < 10 ? STATUSES[index % 5]! : chance(0.6) ? 'active' : pick(STATUSES);
    const partner = partners[index % partners.length]!;
    const input: OfferUpsertInput = {
      partner_id: partner.partner_id,
      kind,
      status,
      deleted: index === 10 || chance(0.04),
      delisted: index === 11 || chance(0.04),
      test_only: index === 12 || chance(0.04),
      upstream_offer_id: kind === 'remote' ? `up-${index}` : undefined,
      destination_url: destinationOf(index),
      details: kind === 'local' && index !== 13 && chance(0.92) ? details(pick, chance, index) : undefined,
      targeting: locations.length > 0 && (index === 14 || chance(0.3)) ? targeting(pick, random, locations, index === 14 ? 10 : 1 + Math.floor(random() * 3)) : undefined,
      internal: kind === 'remote'
        ? { remote_endpoint: `https://partner-${index % 97}.example.test/offers/${index}`, credentials: { api_key: `seed-key-${index}` } }
        : chance(0.3) ? { settlement_contract: `contract-${index % 13}`, recommendation_context: { segment: pick(CATEGORIES) } } : undefined,
    };
    const checked = validateInput(offerUpsertInput, input);
    const offer = offerUpsertedEvent(checked, targetingRules(checked.targeting ?? []), ago(60));
    offerEvents.push(offerEvent(EventType.OfferUpserted, offer));
    offers.push({
      offer_id: offer.offer_id, partner_id: offer.partner_id, kind, status, deleted: offer.deleted, delisted: offer.delisted,
      test_only: offer.test_only, has_details: offer.details !== null, targeted: offer.targeting.length > 0,
      destination_url: offer.destination_url, goals: checked.details?.goals ?? [],
    });

    if (kind === 'remote') {
      const count = index < 10 ? 3 : Math.floor(random() * 5);
      for (let s = 0; s < count; s++) {
        const snapshot = snapshotPublishedEvent(
          { offer_id: offer.offer_id, language: pick(LANGUAGES) ?? undefined, active: s === 0 || chance(0.8), updated_at: ago(30).toISOString(), content: details(pick, chance, index) },
          now,
        );
        if (chance(1 / MALFORMED_EVERY)) snapshot.content = pick(['{"offer_info":', '{"offer_info":{"title":"Half"}}', '[]']);
        offerEvents.push(offerEvent(EventType.RemoteSnapshotPublished, snapshot));
      }
    }

    const shapes = ['short_code', ...(chance(0.4) ? ['static_path'] : []), ...(index < 3 || chance(0.3) ? ['instance_uuid'] : [])] as const;
    for (const shape of shapes) {
      const application_id = applications.length > 0 && chance(0.7) ? pick(applications) : undefined;
      const link = linkRegisteredEvent({ offer_id: offer.offer_id, shape, application_id, target_url: `https://shop.example.test/o/${index}` }, now);
      offerEvents.push(offerEvent(EventType.TrackedLinkRegistered, link));
      links.push({ offer_id: link.offer_id, shape, code: link.code, offer_instance_id: link.offer_instance_id, application_id: link.application_id });
    }
  }

  await append(context, 'partners', partnerEvents);
  await append(context, 'offers', offerEvents);
  context.shared.set(CATALOG_SHARED.partners, partners);
  context.shared.set(CATALOG_SHARED.offers, offers);
  context.shared.set(CATALOG_SHARED.links, links);
}

/** A cpa price in the currency's own units: cents for USD and EUR, whole yen (the price shown is the one paid). */
const cpaPrice = (currency: string, index: number) => ({
  model: 'cpa' as const,
  amount: currency === 'JPY' ? String((1 + (index % 40)) * 150) : `${1 + (index % 40)}.${String(index % 100).padStart(2, '0')}`,
  currency,
});

function details(pick: <T>(items: readonly T[]) => T, chance: (p: number) => boolean, index: number): OfferDetailsDocument {
  const brand = pick(BRANDS);
  const goals = GOALS.filter(() => chance(0.4)).slice(0, 3);
  const chosen = goals.length > 0 ? goals : [GOALS[0]];
  return {
    offer_info: { title: `${brand} offer ${index + 1}`, category: { id: pick(CATEGORIES) }, description: `Complete the steps with ${brand} and earn a reward.` },
    entity: { id: `ent-${index % 500}`, name: brand, type: pick(['app', 'merchant', 'service']) },
    goals: chosen.map(([goal]) => (chance(0.75) ? { event: goal, pricing: cpaPrice(pick(['USD', 'EUR', 'JPY']), index) } : { event: goal, pricing: { model: 'cps' as const, rate: `${1 + (index % 25)}.5` } })),
    ...(chance(0.7) ? { material: [{ format: 'image', url: `https://cdn.example.test/offers/${index}/icon.png`, tag: 'icon' }] } : {}),
    ...(chance(0.6) ? { action: { name: pick(['Play now', 'Sign up', 'Shop now']), consumer_action: pick(['install', 'register', 'purchase']) } } : {}),
  };
}

function targeting(pick: <T>(items: readonly T[]) => T, random: () => number, ids: string[], rules: number): OfferUpsertInput['targeting'] {
  return Array.from({ length: rules }, () => {
    const include = [...new Set([pick(ids), pick(ids)])].map((location_id) => ({ location_id }));
    const exclude = random() < 0.3 ? [{ location_id: pick(ids) }] : [];
    return { geo: { include, exclude } };
  });
}

/** Real ids of the current FULL release (targeting must name existing locations); none when no catalog is loaded. */
async function catalogLocationIds(context: SeedContext): Promise<string[]> {
  const ids = await currentLocationIds(context.runtime.db, 2000);
  if (ids.length === 0) process.stderr.write(`warning: no FULL catalog loaded (load one with \`${GEO_LOAD_COMMAND}\`); offers get no targeting\n`);
  return ids;
}

async function append(context: SeedContext, topic: 'partners' | 'offers', events: NewEvent[]) {
  const bar = context.progress(topic, events.length);
  for (let start = 0; start < events.length; start += BATCH) {
    const chunk = events.slice(start, start + BATCH);
    await appendEvents(context.runtime, topic, chunk);
    bar.tick(chunk.length);
  }
  bar.done();
}
