import { Type, type Static } from '@sinclair/typebox';
import { randomInt } from 'node:crypto';
import { uuidV7 } from '../../platform/ids/uuid-v7.js';
import type { Sql } from '../../platform/db/db.js';
import { linkUrl, shapeOfCode, type TrackedLinkShape } from '../../projections/offers/links/parse-link.js';
import { findTrackedLinkByCode } from '../../projections/offers/links/queries.js';
import { findOffer } from '../../projections/offers/queries.js';
import { findServedInstances, servedLinkCodes } from '../../projections/serves/queries.js';
import { findApplication } from '../../projections/accounts/queries.js';
import { claimLinkCodes, releaseLinkCodes } from '../serves/link-code-claims.js';
import { EventType, type TrackedLinkRegistered } from '../../schemas/generated/events.js';
import { appendEvents } from '../append.js';
import { CommandInputError, CommandNotFoundError, defineCommand } from '../command.js';
import { canonicalUuid, httpUrl, oneOf } from '../input.js';
import { redirectProblem } from '../clicks/destination.js';
import { offerEvent } from './events.js';

const linkInput = Type.Object(
  {
    offer_id: canonicalUuid('offer the link opens'),
    shape: oneOf(['short_code', 'instance_uuid', 'static_path'], 'path shape of the link'),
    code: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'short_code: 8 alphanumerics; instance_uuid: the root instance UUID; static_path: st_ token ([A-Za-z0-9_-]); minted when absent',
      }),
    ),
    offer_instance_id: Type.Optional(canonicalUuid('served card the link belongs to (instance_uuid links: the code itself)')),
    application_id: Type.Optional(canonicalUuid('application the link was issued to')),
    target_url: Type.Optional(httpUrl('destination the link redirects to; without one the link never opens (its clicks answer 404)')),
  },
  { additionalProperties: false },
);
export type LinkInput = Static<typeof linkInput>;

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A fresh code of the shape; `random` returns an integer in [0, n). */
export function mintCode(shape: TrackedLinkShape, random: (n: number) => number = randomInt): string {
  const chars = (length: number) => Array.from({ length }, () => ALPHANUMERIC[random(ALPHANUMERIC.length)]).join('');
  if (shape === 'short_code') return chars(8);
  if (shape === 'instance_uuid') return uuidV7();
  return `st_${chars(12)}`;
}

/** The event for a checked input; throws CommandInputError when code and shape disagree. Pure apart from minting. */
export function linkRegisteredEvent(input: LinkInput, now: Date): TrackedLinkRegistered {
  const shape = input.shape as TrackedLinkShape;
  const code = input.code ?? mintCode(shape);
  if (shapeOfCode(code) !== shape) {
    const expected = { short_code: '8 letters or digits', instance_uuid: 'a canonical lowercase UUID', static_path: 'st_ followed by letters, digits, _ or -' }[shape];
    throw new CommandInputError('code', `"${code}" does not have the shape of ${shape === 'instance_uuid' ? 'an' : 'a'} ${shape} link's code (${expected})`);
  }
  const targetProblem = input.target_url === undefined ? undefined : redirectProblem(input.target_url);
  if (targetProblem) throw new CommandInputError('target_url', targetProblem);
  if (shape === 'instance_uuid' && input.offer_instance_id !== undefined && input.offer_instance_id !== code) {
    throw new CommandInputError('offer_instance_id', 'must equal code for an instance_uuid link (the code is the instance id)');
  }
  return {
    event_id: uuidV7(),
    offer_id: input.offer_id,
    shape,
    code,
    offer_instance_id: shape === 'instance_uuid' ? code : (input.offer_instance_id ?? null),
    application_id: input.application_id ?? null,
    target_url: input.target_url ?? null,
    registered_at: now.getTime(),
  };
}

async function checkReferences(sql: Sql, value: TrackedLinkRegistered) {
  if (!(await findOffer(sql, value.offer_id))) throw new CommandNotFoundError('offer_id', `no offer ${value.offer_id}`);
  const registered = await findTrackedLinkByCode(sql, value.code);
  if (registered) throw new CommandInputError('code', `"${value.code}" is already registered (offer ${registered.offer_id}); a link never changes its mapping`);
  // A served card's short link opens its card, so a registration of its code could never open.
  if (value.shape === 'short_code' && (await servedLinkCodes(sql, [value.code])).length > 0) {
    throw new CommandInputError('code', `"${value.code}" is a served card's tracked link; choose another code or leave code out`);
  }
  if (value.application_id !== null && !(await findApplication(sql, value.application_id))) {
    throw new CommandNotFoundError('application_id', `no application ${value.application_id}`);
  }
  // A card served here is one offer's for good: a link naming it must name that offer (and application).
  if (value.offer_instance_id !== null) {
    const [card] = await findServedInstances(sql, [value.offer_instance_id]);
    const field = value.shape === 'instance_uuid' ? 'code' : 'offer_instance_id';
    if (card && card.offer_id !== value.offer_id) {
      throw new CommandInputError(field, `card ${card.offer_instance_id} was served for offer ${card.offer_id}, not ${value.offer_id}`);
    }
    if (card && value.application_id !== null && card.application_id !== value.application_id) {
      throw new CommandInputError('application_id', `card ${card.offer_instance_id} was served to application ${card.application_id}, not ${value.application_id}`);
    }
  }
}

/**
 * Claims the code for this registration (link_code_claims, shared with the codes Query mints): of
 * two registrations of one code at the same moment, or a registration and a card minted then, only
 * one gets it; the read model keeps a code's first mapping, so the other would be lost unheard.
 */
async function claimCode(sql: Sql, code: string) {
  if ((await claimLinkCodes(sql, [code])).has(code)) return;
  throw new CommandInputError('code', `"${code}" was just taken (by a card being served or another registration of it); choose another code or leave code out`);
}

/** Maps a tracked link (short code, root instance UUID or static path) on LINK_BASE to its offer. */
export const registerLink = defineCommand({
  name: 'link:register',
  summary: 'Register a tracked link on LINK_BASE (8-char short code, root instance UUID or /static/st_ path) for an offer',
  reads: ['offers', 'serves', 'accounts'],
  writes: ['offers'],
  input: linkInput,
  async execute(input, { runtime, now }) {
    const value = linkRegisteredEvent(input, now());
    await checkReferences(runtime.db, value);
    await claimCode(runtime.db, value.code);
    let appended;
    try {
      [appended] = await appendEvents(runtime, 'offers', [offerEvent(EventType.TrackedLinkRegistered, value)]);
    } catch (error) {
      // Not logged: the code is free again for a retry.
      await releaseLinkCodes(runtime.db, [value.code]).catch(() => {});
      throw error;
    }
    return { offer_id: value.offer_id, code: value.code, url: linkUrl(runtime.config.linkBase, value), event_id: value.event_id, ...appended };
  },
});
