import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offerUpsertedEvent, type OfferUpsertInput } from '../../commands/offers/upsert.js';
import type { LoggedEvent } from '../../platform/events/event-log.js';
import { applyBatch } from '../../platform/projection/runner.js';
import type { Projection } from '../../platform/projection/projection.js';
import { offerInternalProjection } from '../../projections/offers/internal/projection.js';
import { servingCandidates } from '../../projections/offers/internal/queries.js';
import { offersProjection } from '../../projections/offers/projection.js';
import { EventType } from '../../schemas/generated/events.js';
import { createTestRuntime, type TestRuntime } from '../support/app.js';
import { details } from '../support/serving-fixtures.js';

// The offers topic feeds two projections that commit apart: the public offer (`offers`) and its
// destination and targeting (`offer-internal`). Serving reads both; an offer one of them has
// applied further than the other is not served until they agree, so a new offer is never served
// before its targeting is there, nor an updated one with its former rules.
let t: TestRuntime;
const OFFER = '01939c5e-7b1a-7c3e-9f00-00000000c0a1';
const PARTNER = '01939c5e-7b1a-7c3e-9f00-00000000c0a2';
const offsets = new Map<string, number>();

/** One OfferUpserted as the log would hand it over, active unless `state` says otherwise, targeting `include`. */
function upserted(include: string, state: Partial<Pick<OfferUpsertInput, 'status' | 'deleted' | 'delisted'>> = {}): LoggedEvent {
  const value = offerUpsertedEvent(
    { offer_id: OFFER, partner_id: PARTNER, kind: 'local', status: 'active', ...state, details: details('candidates') as OfferUpsertInput['details'], destination_url: 'https://shop.example/p' },
    [{ geo: { include: [include], exclude: [] } }],
    new Date('2026-11-30T00:00:00Z'),
  );
  const offset = String(offsets.size);
  offsets.set(value.event_id, offsets.size);
  return { topic: 'offers', partition: 0, offset, key: OFFER, type: EventType.OfferUpserted, value: value as unknown as Record<string, unknown>, schemaId: 1, timestamp: new Date() };
}

const apply = (projection: Projection, event: LoggedEvent) => applyBatch(t.runtime.db, projection, { topic: 'offers', partition: 0, events: [event] });

async function candidate() {
  const rows = await t.runtime.db.transaction(async (tx) => {
    await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    return servingCandidates(tx);
  });
  const row = rows.find((candidate) => candidate.offer_id === OFFER);
  return row && { targeting: row.targeting.map((rule) => rule.include), destination_url: row.destination_url };
}

beforeAll(async () => {
  t = await createTestRuntime();
});
afterAll(() => t?.close());

describe('serving candidates', () => {
  it('leave out an offer until both of its projections have applied its latest upsert', async () => {
    const first = upserted('2840');
    await apply(offersProjection, first);
    // Public and active, but its targeting and destination not applied yet: not servable.
    expect(await candidate()).toBeUndefined();
    await apply(offerInternalProjection, first);
    expect(await candidate()).toEqual({ targeting: [['2840']], destination_url: 'https://shop.example/p' });

    const second = upserted('2036');
    await apply(offersProjection, second);
    // Its former rules no longer stand for it.
    expect(await candidate()).toBeUndefined();
    await apply(offerInternalProjection, second);
    expect(await candidate()).toEqual({ targeting: [['2036']], destination_url: 'https://shop.example/p' });

    // The other way round: the rules of an upsert whose public side is not applied yet are not used either.
    const third = upserted('21137');
    await apply(offerInternalProjection, third);
    expect(await candidate()).toBeUndefined();
    await apply(offersProjection, third);
    expect(await candidate()).toEqual({ targeting: [['21137']], destination_url: 'https://shop.example/p' });
  });

  it.each([
    ['paused', { status: 'paused' }],
    ['deleted', { deleted: true }],
    ['delisted', { delisted: true }],
  ] as const)('leave out a %s offer, applied by both projections, until it is active again', async (_what, state) => {
    const withdrawn = upserted('2840', state);
    await apply(offersProjection, withdrawn);
    await apply(offerInternalProjection, withdrawn);
    expect(await candidate()).toBeUndefined();

    const active = upserted('2840');
    await apply(offersProjection, active);
    await apply(offerInternalProjection, active);
    expect(await candidate()).toEqual({ targeting: [['2840']], destination_url: 'https://shop.example/p' });
  });
});
