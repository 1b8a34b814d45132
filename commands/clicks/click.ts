import { uuidV7 } from '../../platform/ids/uuid-v7.js';
import type { AppendedEvent } from '../../platform/events/event-log.js';
import type { Runtime } from '../../platform/runtime.js';
import type { TrackedLinkRef } from '../../projections/offers/links/parse-link.js';
import { EventType, type LinkClicked } from '../../schemas/generated/events.js';
import { appendEvents, newEvent } from '../append.js';
import { CommandInputError } from '../command.js';
import { clickRedirectUrl, isRedirectable } from './destination.js';
import type { ClickTarget } from '../../projections/offers/links/link-target.js';
import { directLinkReads, resolveClickTarget, type LinkReads } from './target.js';
import { atMostCharacters } from '../../platform/text/character-count.js';
import { NUL } from '../../platform/db/storable-text.js';

export const SUB_ID_NAMES = ['sub_id1', 'sub_id2', 'sub_id3', 'sub_id4', 'sub_id5'] as const;
export type SubIdName = (typeof SUB_ID_NAMES)[number];
export type SubIds = Partial<Record<SubIdName, string>>;
/** Longest sub id passed through (characters); attribution parameters, not payloads. */
export const SUB_ID_MAX_LENGTH = 255;
/** How long a click on a code not (yet) in the read models waits for them to catch up. */
const MISS_WAIT_MS = 2_000;

/**
 * The sub ids of a click's query string (as the HTTP layer parsed it; other parameters are
 * ignored). An empty value is absent. Throws CommandInputError naming the parameter when one is
 * repeated or longer than SUB_ID_MAX_LENGTH.
 */
export function subIdsFromQuery(query: Record<string, unknown>): SubIds {
  const subIds: SubIds = {};
  for (const name of SUB_ID_NAMES) {
    const given = query[name];
    // Empty values are absent, so `sub_id1=&sub_id1=x` gives sub_id1 once.
    const value = Array.isArray(given) ? onlyOrList(given.filter((item) => item !== '')) : given;
    if (value === undefined || value === '') continue;
    if (typeof value !== 'string') throw new CommandInputError(name, 'is given more than once; give each sub id at most once');
    if (value.includes(NUL)) throw new CommandInputError(name, 'contains a NUL character (%00), which cannot be recorded; remove it');
    if (!atMostCharacters(value, SUB_ID_MAX_LENGTH)) throw new CommandInputError(name, `is longer than ${SUB_ID_MAX_LENGTH} characters`);
    subIds[name] = value;
  }
  return subIds;
}

/** The one value of a list, undefined for none, the list itself for more. */
const onlyOrList = (values: unknown[]) => (values.length <= 1 ? values[0] : values);

/** Whether a link can be opened now, and if so where it leads. */
export type LinkState =
  | { status: 'open'; target: ClickTarget & { destination: string } }
  | { status: 'unknown' }
  /** The link exists but has no destination a browser may be sent to. */
  | { status: 'no_destination'; target: ClickTarget }
  /** The link's offer is not active (paused, pending, rejected, expired, deleted or delisted), or test-only and the link not a test card's. */
  | { status: 'offer_inactive'; target: ClickTarget };

/**
 * Resolves a link on the link origin without recording anything (HEAD uses it alone). Throws
 * ReadModelsBehindError when the read models lag too far to tell whether the link exists.
 */
export async function openLink(runtime: Runtime, link: TrackedLinkRef, reads: LinkReads = directLinkReads(runtime)): Promise<LinkState> {
  const target = await resolveClickTarget(runtime, link, MISS_WAIT_MS, reads);
  if (!target) return { status: 'unknown' };
  const destination = target.destination;
  if (!isRedirectable(destination)) return { status: 'no_destination', target };
  // The stored lifecycle status, not the public one: a remote offer's card is reported expired
  // afterwards, but its link opens while the offer is active.
  const offer = await reads.offer(target.offer_id);
  if (!offer || offer.status !== 'active' || offer.deleted || offer.delisted) return { status: 'offer_inactive', target };
  // A test-only offer is served to test serves only (Query); elsewhere the instance route reports it expired.
  if (offer.test_only && target.environment !== 'test') return { status: 'offer_inactive', target };
  return { status: 'open', target: { ...target, destination } };
}

/** The event of one click on an open link. Pure: the click id and time are given. */
export function linkClickedEvent(target: ClickTarget & { destination: string }, click: { svc_click_id: string; clicked_at: Date; sub_ids: SubIds }): LinkClicked {
  const sub = (name: SubIdName) => click.sub_ids[name] ?? null;
  return {
    svc_click_id: click.svc_click_id,
    link_shape: target.shape,
    link_code: target.code,
    offer_instance_id: target.offer_instance_id,
    application_id: target.application_id,
    offer_id: target.offer_id,
    environment: target.environment,
    clicked_at: click.clicked_at.getTime(),
    sub_id1: sub('sub_id1'),
    sub_id2: sub('sub_id2'),
    sub_id3: sub('sub_id3'),
    sub_id4: sub('sub_id4'),
    sub_id5: sub('sub_id5'),
    redirect_url: clickRedirectUrl(target.destination, {
      svc_click_id: click.svc_click_id,
      offer_instance_id: target.offer_instance_id,
      ...click.sub_ids,
    }),
  };
}

export type ClickResult = Exclude<LinkState, { status: 'open' }> | { status: 'clicked'; event: LinkClicked; appended: AppendedEvent };

/**
 * A click on a tracked link: resolves it, mints svc_click_id (UUIDv7), appends LinkClicked to
 * `clicks` and resolves once it is durable; the caller redirects to `event.redirect_url` only then.
 * Links that cannot be opened record nothing.
 */
export async function clickLink(
  runtime: Runtime,
  input: { link: TrackedLinkRef; sub_ids: SubIds },
  now: Date,
  options: { signal?: AbortSignal; reads?: LinkReads } = {},
): Promise<ClickResult> {
  const state = await openLink(runtime, input.link, options.reads);
  if (state.status !== 'open') return state;
  // The caller gave up (its deadline passed while the reads waited): nobody is redirected, so no click is logged.
  options.signal?.throwIfAborted();
  const event = linkClickedEvent(state.target, { svc_click_id: uuidV7(), clicked_at: now, sub_ids: input.sub_ids });
  const [appended] = await appendEvents(runtime, 'clicks', [newEvent(EventType.LinkClicked, event.svc_click_id, event)]);
  return { status: 'clicked', event, appended: appended! };
}
