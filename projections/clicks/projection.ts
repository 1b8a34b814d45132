import { insertNewRows } from '../../platform/db/copy-rows.js';
import { newRowsStatement, type InsertColumn } from '../../platform/db/unnest-insert.js';
import type { Projection } from '../../platform/projection/projection.js';
import { evolveClicks, type ClickRow } from './evolve.js';

const COLUMNS: readonly InsertColumn<ClickRow>[] = [
  ['svc_click_id', 'text'],
  ['link_shape', 'text'],
  ['link_code', 'text'],
  ['offer_instance_id', 'text'],
  ['application_id', 'text'],
  ['offer_id', 'text'],
  ['environment', 'text'],
  ['clicked_at', 'timestamptz'],
  ['sub_id1', 'text'],
  ['sub_id2', 'text'],
  ['sub_id3', 'text'],
  ['sub_id4', 'text'],
  ['sub_id5', 'text'],
  ['redirect_url', 'text'],
];

/** `clicks` from topic `clicks`: one set-based insert per batch, idempotent by click id. */
export const clicksProjection: Projection = {
  name: 'clicks',
  topics: ['clicks'],
  tables: ['clicks'],
  // Rows keyed by click ids minted once per event: partitions never share one.
  acrossPartitions: true,
  async apply(tx, events) {
    await insertNewRows(tx, 'clicks', COLUMNS, evolveClicks(events));
  },
  applyStatement: (events) => newRowsStatement('clicks', COLUMNS, evolveClicks(events)),
};
