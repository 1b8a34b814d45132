import { Type, type Static } from '@sinclair/typebox';
import { uuidV7 } from '../../platform/ids/uuid-v7.js';
import { RFC_3339_PATTERN, parseRfc3339, rfc3339Problem } from '../../platform/time/rfc3339.js';
import type { Sql } from '../../platform/db/db.js';
import { findOffer, snapshotOwner } from '../../projections/offers/queries.js';
import { offerDetailsDocument, newPricingProblem } from '../../schemas/documents/offer.js';
import { EventType, type RemoteSnapshotPublished } from '../../schemas/generated/events.js';
import { appendEvents } from '../append.js';
import { CommandInputError, CommandNotFoundError, defineCommand } from '../command.js';
import { canonicalUuid } from '../input.js';
import { offerEvent } from './events.js';

const snapshotInput = Type.Object(
  {
    offer_id: canonicalUuid('remote offer the snapshot belongs to'),
    snapshot_id: Type.Optional(canonicalUuid('snapshot to publish or replace; minted (UUIDv7) when absent')),
    language: Type.Optional(
      Type.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$', maxLength: 35, description: 'BCP 47 language tag of the content, e.g. en or pt-BR; omit when unknown' }),
    ),
    active: Type.Optional(Type.Boolean({ description: 'whether the snapshot may be shown (default true)' })),
    updated_at: Type.Optional(
      Type.String({
        // The grammar parseRfc3339 reads, so a time every other input takes is taken here too
        // (to the microsecond, as many clocks write it; `t`, `z` or a space, as RFC 3339 allows).
        pattern: RFC_3339_PATTERN,
        // The pattern takes any number of fraction digits: nine (nanoseconds) and an offset fit.
        maxLength: 40,
        description: "when the partner updated the content, RFC 3339 (default now)",
      }),
    ),
    content: { ...offerDetailsDocument, description: 'public content as JSON in the offer document shape (offer_info, entity, goals, material, action)' },
  },
  { additionalProperties: false },
);
export type SnapshotInput = Static<typeof snapshotInput>;

/** How far ahead of this clock a partner's updated_at may be (their clock, a time zone written wrong). */
const UPDATED_AT_AHEAD_MS = 24 * 60 * 60_000;

/** The event for an input whose shape was checked; throws CommandInputError for what the schema cannot say. Pure. */
export function snapshotPublishedEvent(input: SnapshotInput, now: Date): RemoteSnapshotPublished {
  const problem = newPricingProblem(input.content);
  if (problem) throw new CommandInputError(`content.${problem.field}`, problem.message);
  // Strict: Date would read 2026-02-30 as 2 March, and this time picks the snapshot shown.
  const updatedAt = input.updated_at === undefined ? now : parseRfc3339(input.updated_at);
  if (updatedAt === undefined) throw new CommandInputError('updated_at', rfc3339Problem(input.updated_at!));
  // The most recently updated active snapshot is the one shown: one dated ahead would win for good.
  if (updatedAt.getTime() > now.getTime() + UPDATED_AT_AHEAD_MS) {
    throw new CommandInputError('updated_at', `is more than a day ahead of now (${now.toISOString()}); give when the partner updated the content`);
  }
  return {
    event_id: uuidV7(),
    offer_id: input.offer_id,
    snapshot_id: input.snapshot_id ?? uuidV7(),
    language: input.language ?? null,
    active: input.active ?? true,
    updated_at: updatedAt.getTime(),
    content: JSON.stringify(input.content),
    published_at: now.getTime(),
  };
}

async function checkReferences(sql: Sql, input: SnapshotInput) {
  const offer = await findOffer(sql, input.offer_id);
  if (!offer) throw new CommandNotFoundError('offer_id', `no offer ${input.offer_id}`);
  if (offer.kind !== 'remote') throw new CommandInputError('offer_id', `offer ${input.offer_id} is local; snapshots are for remote offers`);
  if (input.snapshot_id) {
    const owner = await snapshotOwner(sql, input.snapshot_id);
    if (owner && owner !== input.offer_id) throw new CommandInputError('snapshot_id', `belongs to offer ${owner}, not ${input.offer_id}`);
  }
}

/** Publishes (or replaces) a snapshot of a remote offer's public content. */
export const publishSnapshot = defineCommand({
  name: 'offer:publish-snapshot',
  summary: "Publish or replace a remote offer's content snapshot (language, active flag, update time)",
  reads: ['offers'],
  writes: ['offers'],
  input: snapshotInput,
  async execute(input, { runtime, now }) {
    const value = snapshotPublishedEvent(input, now());
    await checkReferences(runtime.db, input);
    const [appended] = await appendEvents(runtime, 'offers', [offerEvent(EventType.RemoteSnapshotPublished, value)]);
    return { offer_id: value.offer_id, snapshot_id: value.snapshot_id, event_id: value.event_id, ...appended };
  },
});
