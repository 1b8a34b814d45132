import type { Projection } from '../../../platform/projection/projection.js';
import { evolveOfferInternals } from './evolve.js';

/**
 * Internal read models of the `offers` topic: targeting rules and internals. A projection of its
 * own so the public `offers` projection never handles these fields at all.
 */
export const offerInternalProjection: Projection = {
  name: 'offer-internal',
  topics: ['offers'],
  tables: ['offer_targeting', 'offer_internals'],
  async apply(tx, events) {
    const states = [...evolveOfferInternals(events).values()];
    if (states.length === 0) return;
    const internals = states.map((state) => state.internals);
    await tx.query(
      `INSERT INTO offer_internals (offer_id, remote_endpoint, credentials, settlement_contract, recommendation_context, destination_url, last_event_id)
       SELECT offer_id, remote_endpoint, credentials::jsonb, settlement_contract, recommendation_context::jsonb, destination_url, last_event_id
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
         AS batch(offer_id, remote_endpoint, credentials, settlement_contract, recommendation_context, last_event_id, destination_url)
       ON CONFLICT (offer_id) DO UPDATE SET
         remote_endpoint = EXCLUDED.remote_endpoint, credentials = EXCLUDED.credentials,
         settlement_contract = EXCLUDED.settlement_contract, recommendation_context = EXCLUDED.recommendation_context,
         destination_url = EXCLUDED.destination_url, last_event_id = EXCLUDED.last_event_id`,
      [
        internals.map((r) => r.offer_id),
        internals.map((r) => r.remote_endpoint),
        internals.map((r) => JSON.stringify(r.credentials)),
        internals.map((r) => r.settlement_contract),
        internals.map((r) => JSON.stringify(r.recommendation_context)),
        internals.map((r) => r.last_event_id),
        internals.map((r) => r.destination_url),
      ],
    );
    // Targeting is replaced as a whole per offer.
    await tx.query('DELETE FROM offer_targeting WHERE offer_id = ANY($1::text[])', [internals.map((r) => r.offer_id)]);
    const rows = states.flatMap((state) => state.targeting);
    if (rows.length === 0) return;
    await tx.query(
      `INSERT INTO offer_targeting (offer_id, rule_index, mode, location_id)
       SELECT * FROM unnest($1::text[], $2::smallint[], $3::text[], $4::bigint[])`,
      [rows.map((r) => r.offer_id), rows.map((r) => r.rule_index), rows.map((r) => r.mode), rows.map((r) => r.location_id)],
    );
  },
};
