import { v7 as uuidv7 } from 'uuid';
import { appendEvents, newEvent } from '../../commands/append.js';
import { mintCode } from '../../commands/offers/link-register.js';
import type { AppendedEvent } from '../../platform/events/event-log.js';
import { awaitCaughtUp } from '../../platform/projection/catch-up.js';
import type { Runtime } from '../../platform/runtime.js';
import { servesProjection } from '../../projections/serves/projection.js';
import { findServedInstances } from '../../projections/serves/queries.js';
import { linkUrl } from '../../projections/offers/links/parse-link.js';
import { EventType, type OfferServed } from '../../schemas/generated/events.js';

/** What a test says about a serve; the rest is minted or defaulted as the Query route would. */
export type ServeInput = Pick<OfferServed, 'offer_id' | 'application_id'> & Partial<OfferServed>;

/** An OfferServed with a minted instance id and tracked short link, a live serve now. */
export function offerServed(linkBase: string, input: ServeInput): OfferServed {
  const code = input.link_code === undefined ? mintCode('short_code') : input.link_code;
  return {
    offer_instance_id: uuidv7(),
    placement_id: null,
    served_at: Math.floor(Date.now() / 1000) * 1000,
    environment: 'live',
    anonymous: false,
    location_id: null,
    link_code: code,
    link_url: code === null ? null : linkUrl(linkBase, { shape: 'short_code', code }),
    destination_url: 'https://shop.example/landing',
    ...input,
  };
}

/**
 * Appends serves through the write side's append helper, as the Query route does, and (unless
 * `applied: false`) waits until the serves projection has applied them.
 */
export async function appendServes(runtime: Runtime, inputs: ServeInput[], options: { applied?: boolean } = {}): Promise<OfferServed[]> {
  const serves = inputs.map((input) => offerServed(runtime.config.linkBase, input));
  const appended: AppendedEvent[] = await appendEvents(
    runtime,
    'serves',
    serves.map((serve) => newEvent(EventType.OfferServed, serve.offer_instance_id, serve)),
  );
  if (options.applied !== false && !(await (await runtime.watermarks()).awaitApplied('serves', appended, 30_000))) {
    throw new Error('the serves projection did not apply the test serves within 30 s (are the projectors running?)');
  }
  return serves;
}

export async function appendServe(runtime: Runtime, input: ServeInput, options: { applied?: boolean } = {}): Promise<OfferServed> {
  return (await appendServes(runtime, [input], options))[0]!;
}

/**
 * The served_instances rows of `ids` once the serves projection has applied everything the log
 * holds now: Query answers once its serves are logged, before they are projected.
 */
export async function projectedServes(runtime: Runtime, ids: string[]) {
  await awaitCaughtUp(runtime, [servesProjection], 30_000);
  return findServedInstances(runtime.db, ids);
}
