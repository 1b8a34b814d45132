import type { Sql } from '../../platform/db/db.js';
import type { Projection } from '../../platform/projection/projection.js';
import { evolve, type StatusChange } from './evolve.js';

type Column = readonly [name: string, sqlType: string];

/** `SELECT ... FROM unnest($1::t1[], ...)`: one statement for a whole batch of rows. */
function unnest(columns: readonly Column[]) {
  const arrays = columns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ');
  return `unnest(${arrays}) AS batch(${columns.map(([name]) => name).join(', ')})`;
}

function params<R extends object>(columns: readonly Column[], rows: R[]): unknown[] {
  return columns.map(([name]) =>
    rows.map((row) => {
      const value = (row as Record<string, unknown>)[name];
      return value instanceof Date ? value.toISOString() : value;
    }),
  );
}

/** Inserts rows created in the batch; a row already there is replaced only by a later position. */
async function upsert<R extends object>(tx: Sql, table: string, key: string, columns: readonly Column[], rows: R[]) {
  if (rows.length === 0) return;
  const names = columns.map(([name]) => name);
  const updates = names.filter((name) => name !== key).map((name) => `${name} = EXCLUDED.${name}`).join(', ');
  await tx.query(
    `INSERT INTO ${table} (${names.join(', ')}) SELECT ${names.join(', ')} FROM ${unnest(columns)}
     ON CONFLICT (${key}) DO UPDATE SET ${updates} WHERE ${table}.last_offset < EXCLUDED.last_offset`,
    params(columns, rows),
  );
}

/** Status changes of rows created in earlier batches; positions guard against going back. */
async function updateStatus(tx: Sql, table: string, key: string, changes: Map<string, StatusChange>, withReason: boolean) {
  if (changes.size === 0) return;
  const rows = [...changes].map(([id, change]) => ({ id, ...change }));
  const columns: Column[] = [['id', 'text'], ['status', 'text'], ['reason', 'text'], ['changed_at', 'timestamptz'], ['last_offset', 'bigint'], ['last_event_id', 'text']];
  await tx.query(
    `UPDATE ${table} AS row SET status = batch.status, status_changed_at = batch.changed_at,
       ${withReason ? 'status_reason = batch.reason,' : ''} last_offset = batch.last_offset, last_event_id = batch.last_event_id
     FROM ${unnest(columns)}
     WHERE row.${key} = batch.id AND row.last_offset < batch.last_offset`,
    params(columns, rows),
  );
}

const developerColumns = [
  ['developer_id', 'text'], ['name', 'text'], ['email', 'text'], ['status', 'text'], ['status_reason', 'text'],
  ['registered_at', 'timestamptz'], ['status_changed_at', 'timestamptz'], ['last_offset', 'bigint'], ['last_event_id', 'text'],
] as const;
const applicationColumns = [
  ['application_id', 'text'], ['developer_id', 'text'], ['name', 'text'], ['status', 'text'], ['status_reason', 'text'],
  ['registered_at', 'timestamptz'], ['status_changed_at', 'timestamptz'], ['last_offset', 'bigint'], ['last_event_id', 'text'],
] as const;
const placementColumns = [
  ['placement_id', 'text'], ['application_id', 'text'], ['name', 'text'], ['status', 'text'],
  ['created_at', 'timestamptz'], ['status_changed_at', 'timestamptz'], ['last_offset', 'bigint'], ['last_event_id', 'text'],
] as const;
const keyColumns = [
  ['key_id', 'text'], ['kind', 'text'], ['key_hash', 'text'], ['display_prefix', 'text'], ['application_id', 'text'],
  ['label', 'text'], ['issued_at', 'timestamptz'], ['last_event_id', 'text'],
] as const;
const designationColumns = [
  ['placement_id', 'text'], ['application_id', 'text'], ['designated_at', 'timestamptz'], ['last_offset', 'bigint'], ['last_event_id', 'text'],
] as const;

export const accountsProjection: Projection = {
  name: 'accounts',
  topics: ['accounts'],
  tables: ['account_developers', 'account_applications', 'account_api_keys', 'account_placements', 'account_default_placement'],
  async apply(tx, events) {
    const changes = evolve(events);
    await upsert(tx, 'account_developers', 'developer_id', developerColumns, [...changes.developers.values()]);
    await updateStatus(tx, 'account_developers', 'developer_id', changes.developerStatus, true);
    await upsert(tx, 'account_applications', 'application_id', applicationColumns, [...changes.applications.values()]);
    await updateStatus(tx, 'account_applications', 'application_id', changes.applicationStatus, true);
    await upsert(tx, 'account_placements', 'placement_id', placementColumns, [...changes.placements.values()]);
    await updateStatus(tx, 'account_placements', 'placement_id', changes.placementStatus, false);

    const keys = [...changes.keys.values()];
    if (keys.length > 0) {
      // Keys never change after issue except by revocation. A second key with an existing hash
      // (only possible for a sandbox generation issued twice: the same clear key) is dropped.
      const names = keyColumns.map(([name]) => name).join(', ');
      await tx.query(`INSERT INTO account_api_keys (${names}) SELECT ${names} FROM ${unnest(keyColumns)} ON CONFLICT DO NOTHING`, params(keyColumns, keys));
    }
    if (changes.revocations.size > 0) {
      const rows = [...changes.revocations].map(([key_id, revocation]) => ({ key_id, ...revocation }));
      const columns = [['key_id', 'text'], ['revoked_at', 'timestamptz'], ['reason', 'text'], ['last_event_id', 'text']] as const;
      await tx.query(
        `UPDATE account_api_keys AS row SET revoked_at = batch.revoked_at, revocation_reason = batch.reason, last_event_id = batch.last_event_id
         FROM ${unnest(columns)} WHERE row.key_id = batch.key_id AND row.revoked_at IS NULL`,
        params(columns, rows),
      );
    }
    if (changes.designation) {
      const names = designationColumns.map(([name]) => name);
      await tx.query(
        `INSERT INTO account_default_placement (${names.join(', ')}) SELECT ${names.join(', ')} FROM ${unnest(designationColumns)}
         ON CONFLICT (singleton) DO UPDATE SET ${names.map((name) => `${name} = EXCLUDED.${name}`).join(', ')}
         WHERE account_default_placement.last_offset < EXCLUDED.last_offset`,
        params(designationColumns, [changes.designation]),
      );
    }
  },
};
