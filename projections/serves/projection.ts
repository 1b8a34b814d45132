import { insertNewRows } from '../../platform/db/copy-rows.js';
import { newRowsStatement, type InsertColumn } from '../../platform/db/unnest-insert.js';
import type { Projection } from '../../platform/projection/projection.js';
import { evolveServedInstances, type ServedInstanceRow } from './evolve.js';

const COLUMNS: readonly InsertColumn<ServedInstanceRow>[] = [
  ['offer_instance_id', 'text'],
  ['application_id', 'text'],
  ['placement_id', 'text'],
  ['offer_id', 'text'],
  ['served_at', 'timestamptz'],
  ['environment', 'text'],
  ['anonymous', 'boolean'],
  ['location_id', 'text'],
  ['link_code', 'text'],
  ['link_url', 'text'],
  ['destination_url', 'text'],
];

/** `served_instances` from topic `serves`: one set-based insert per batch, idempotent by instance id. */
export const servesProjection: Projection = {
  name: 'serves',
  topics: ['serves'],
  tables: ['served_instances'],
  // Rows keyed by instance ids minted once per event: partitions never share one.
  acrossPartitions: true,
  async apply(tx, events) {
    await insertNewRows(tx, 'served_instances', COLUMNS, evolveServedInstances(events));
  },
  applyStatement: (events) => newRowsStatement('served_instances', COLUMNS, evolveServedInstances(events)),
};
