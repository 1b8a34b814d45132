import type { Projection } from '../../platform/projection/projection.js';
import { evolveServedInstances } from './evolve.js';

/** `served_instances` from topic `serves`: one set-based insert per batch, idempotent by instance id. */
export const servesProjection: Projection = {
  name: 'serves',
  topics: ['serves'],
  tables: ['served_instances'],
  // Rows keyed by instance ids minted once per event: partitions never share one.
  acrossPartitions: true,
  async apply(tx, events) {
    const rows = evolveServedInstances(events);
    if (rows.length === 0) return;
    await tx.query(
      `INSERT INTO served_instances (offer_instance_id, application_id, placement_id, offer_id, served_at, environment,
         anonymous, location_id, link_code, link_url, destination_url)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[],
         $7::boolean[], $8::text[], $9::text[], $10::text[], $11::text[])
       ON CONFLICT DO NOTHING`,
      [
        rows.map((r) => r.offer_instance_id),
        rows.map((r) => r.application_id),
        rows.map((r) => r.placement_id),
        rows.map((r) => r.offer_id),
        rows.map((r) => r.served_at.toISOString()),
        rows.map((r) => r.environment),
        rows.map((r) => r.anonymous),
        rows.map((r) => r.location_id),
        rows.map((r) => r.link_code),
        rows.map((r) => r.link_url),
        rows.map((r) => r.destination_url),
      ],
    );
  },
};
