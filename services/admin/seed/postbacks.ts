import { uuidV7 } from '../../../platform/ids/uuid-v7.js';
import type { NewEvent } from '../../../platform/events/event-log.js';
import { newEvent } from '../../../commands/append.js';
import { checkFields, type PostbackFields } from '../../../commands/postbacks/fields.js';
import { priceConversion } from '../../../commands/postbacks/pricing.js';
import { postbackReceivedEvent } from '../../../commands/postbacks/receive.js';
import { EventType, type LinkClicked } from '../../../schemas/generated/events.js';
import type { SeededOffer, SeededPartner } from './catalog.js';
import { postbackLogKey } from '../../../commands/postbacks/log-key.js';

/** About this share of clicks converts; a few conversions are resent or resent changed. */
export const CONVERSION_RATE = 0.4;
const RESEND_RATE = 0.05;
const CHANGED_RESEND_RATE = 0.02;
/** How long after a postback a partner's resend of it comes. */
export const RESEND_AFTER_MS = 60_000;

/**
 * The postbacks a partner reports for one click: usually one, attributed by the click id, built
 * by the intake's own functions (so their goals and payouts are what the route would log). Some
 * name an event with no goal (unmapped), some are resent (already recorded) or resent with
 * another amount (identity conflict). Keyed as the intake keys them.
 */
export function seededPostbacks(click: LinkClicked, offer: SeededOffer, partner: SeededPartner, random: () => number, at: Date): NewEvent[] {
  const mapped = Object.keys(partner.goal_mappings);
  const event_name = mapped.length > 0 && random() < 0.9 ? mapped[Math.floor(random() * mapped.length)]! : 'newsletter_signup';
  const cps = offer.goals.some((goal) => goal.pricing.model === 'cps');
  const fields: PostbackFields = {
    event_name,
    svc_click_id: click.svc_click_id,
    ...(random() < 0.5 ? { event_id: `ev-${click.svc_click_id}` } : { order_id: `o-${Math.floor(random() * 1e9)}` }),
    ...(cps || random() < 0.3 ? { amount: `${1 + Math.floor(random() * 500)}.${String(Math.floor(random() * 100)).padStart(2, '0')}`, currency: 'USD' } : {}),
  };
  const attribution = {
    matched_by: 'svc_click_id' as const,
    offer_id: click.offer_id,
    offer_instance_id: click.offer_instance_id,
    svc_click_id: click.svc_click_id,
    application_id: click.application_id,
    environment: click.environment,
  };
  const report = (sent: PostbackFields, when: Date) => {
    // Read as the intake reads a body: the amount in canonical form ("279.50" is "279.5").
    const read = checkFields(sent);
    if (!read.ok) throw new Error(`the seed made a postback the intake refuses: ${read.message}`);
    const reported = read.fields;
    const event = postbackReceivedEvent(
      { partner_id: partner.partner_id, source_ip: partner.networks[0]!.split('/')[0]!, channel: 'current', fields: reported, correlation_id: uuidV7() },
      attribution,
      priceConversion(partner.goal_mappings, offer.offer_id, offer.goals, reported),
      when,
    );
    return newEvent(EventType.PostbackReceived, postbackLogKey(event), event);
  };
  const events = [report(fields, at)];
  const later = new Date(at.getTime() + RESEND_AFTER_MS);
  if (random() < RESEND_RATE) events.push(report(fields, later));
  if (random() < CHANGED_RESEND_RATE) events.push(report({ ...fields, amount: '999.99', currency: 'USD' }, later));
  return events;
}
