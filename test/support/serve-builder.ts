import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { appendEvents, newEvent } from '../../commands/append.js';
import type { Runtime } from '../../platform/runtime.js';
import { EventType, type OfferServed } from '../../schemas/generated/events.js';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A fresh 8-character short-link code. */
export function linkCode(): string {
  return [...randomBytes(8)].map((byte) => ALPHANUMERIC[byte % ALPHANUMERIC.length]).join('');
}

/**
 * One OfferServed value as the Query route would append it: a live, non-anonymous card with a
 * tracked short link on `linkBase` and an https destination, served now (second precision), unless
 * `overrides` say otherwise. `link: false` makes a card without a link.
 */
export function servedCard(
  linkBase: string,
  card: Pick<OfferServed, 'application_id' | 'offer_id'> & Partial<OfferServed> & { link?: boolean },
): OfferServed {
  const { link = true, ...overrides } = card;
  const code = link ? linkCode() : null;
  return {
    offer_instance_id: uuidv7(),
    placement_id: null,
    served_at: Math.floor(Date.now() / 1000) * 1000,
    environment: 'live',
    anonymous: false,
    location_id: null,
    link_code: code,
    link_url: code ? `${linkBase}/${code}` : null,
    destination_url: 'https://merchant.example/landing?ref=card',
    ...overrides,
  };
}

/** Appends the cards on topic `serves` through the one append helper and waits until the serves read model has them. */
export async function appendServes(runtime: Runtime, cards: OfferServed[], timeoutMs = 30_000): Promise<void> {
  if (cards.length === 0) return;
  const appended = await appendEvents(
    runtime,
    'serves',
    cards.map((card) => newEvent(EventType.OfferServed, card.offer_instance_id, card)),
  );
  const watermarks = await runtime.watermarks();
  if (!(await watermarks.awaitApplied('serves', appended, timeoutMs))) throw new Error('the serves read model did not apply the cards in time');
}
