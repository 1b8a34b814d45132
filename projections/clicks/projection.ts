import type { Projection } from '../../platform/projection/projection.js';
import { evolveClicks } from './evolve.js';

/** `clicks` from topic `clicks`: one set-based insert per batch, idempotent by click id. */
export const clicksProjection: Projection = {
  name: 'clicks',
  topics: ['clicks'],
  tables: ['clicks'],
  // Rows keyed by click ids minted once per event: partitions never share one.
  acrossPartitions: true,
  async apply(tx, events) {
    const rows = evolveClicks(events);
    if (rows.length === 0) return;
    await tx.query(
      `INSERT INTO clicks (svc_click_id, link_shape, link_code, offer_instance_id, application_id, offer_id, environment,
         clicked_at, sub_id1, sub_id2, sub_id3, sub_id4, sub_id5, redirect_url)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
         $8::timestamptz[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[])
       ON CONFLICT DO NOTHING`,
      [
        rows.map((r) => r.svc_click_id),
        rows.map((r) => r.link_shape),
        rows.map((r) => r.link_code),
        rows.map((r) => r.offer_instance_id),
        rows.map((r) => r.application_id),
        rows.map((r) => r.offer_id),
        rows.map((r) => r.environment),
        rows.map((r) => r.clicked_at.toISOString()),
        rows.map((r) => r.sub_id1),
        rows.map((r) => r.sub_id2),
        rows.map((r) => r.sub_id3),
        rows.map((r) => r.sub_id4),
        rows.map((r) => r.sub_id5),
        rows.map((r) => r.redirect_url),
      ],
    );
  },
};
