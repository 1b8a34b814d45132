import type { Sql } from '../db/db.js';
import { qualified } from '../db/identifier.js';
import { compareCodeUnits } from '../text/code-unit-order.js';

/** Applied positions of several projections: the next offset to apply, by positionKey. */
export type Positions = Map<string, bigint>;

export const positionKey = (projection: string, topic: string, partition: number) => `${projection}/${topic}/${partition}`;

export interface Position {
  projection: string;
  topic: string;
  partition: number;
  /** Next offset to apply (everything below it is in the read model). */
  next: string;
}

/** The positions stored in a schema's projection_offsets, optionally locked until the transaction ends. */
export async function positionsIn(sql: Sql, schema: string, projections: string[], options: { lock?: boolean } = {}): Promise<Positions> {
  const { rows } = await sql.query<{ projection: string; topic: string; partition: number; next_offset: string }>(
    `SELECT projection, topic, partition, next_offset FROM ${qualified(schema, 'projection_offsets')}
     WHERE projection = ANY($1::text[]) ${options.lock ? 'FOR UPDATE' : ''}`,
    [projections],
  );
  return new Map(rows.map((row) => [positionKey(row.projection, row.topic, row.partition), BigInt(row.next_offset)]));
}

/** Equal wherever either has a position; a missing position is 0 (nothing applied). */
export function samePositions(a: Positions, b: Positions): boolean {
  return [...new Set([...a.keys(), ...b.keys()])].every((key) => (a.get(key) ?? 0n) === (b.get(key) ?? 0n));
}

export function listPositions(positions: Positions): Position[] {
  return [...positions]
    .map(([key, next]) => {
      const [projection, topic, partition] = key.split('/') as [string, string, string];
      return { projection, topic, partition: Number(partition), next: next.toString() };
    })
    .sort((a, b) => compareCodeUnits(a.projection, b.projection) || compareCodeUnits(a.topic, b.topic) || a.partition - b.partition);
}
