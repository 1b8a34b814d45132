import type { Sql } from '../../platform/db/db.js';

/**
 * How long a claim outlives its minting. A claimed code is handed out within the link code
 * reserve's bound (seconds), and its serve reaches served_instances, whose unique index guards it
 * from then on, milliseconds after it is logged; ten minutes cover a projector that stalls for a
 * while, and keep the table small.
 */
export const CLAIM_TTL_SECONDS = 600;

/**
 * Claims `codes` for this process; returns the ones it got (a code claimed before, by any process,
 * is left out). Claims older than CLAIM_TTL_SECONDS are removed in the same statement, so the
 * table holds only the last minutes' codes.
 */
export async function claimLinkCodes(sql: Sql, codes: string[]): Promise<Set<string>> {
  if (codes.length === 0) return new Set();
  const { rows } = await sql.query<{ code: string }>(
    `WITH expired AS (
       DELETE FROM link_code_claims WHERE claimed_at < now() - make_interval(secs => $2)
     ), claimed AS (
       INSERT INTO link_code_claims (code) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING RETURNING code
     )
     SELECT code FROM claimed`,
    [codes, CLAIM_TTL_SECONDS],
  );
  return new Set(rows.map((row) => row.code));
}

/** Gives back codes claimed for something that was then not logged, so a retry can claim them again. */
export async function releaseLinkCodes(sql: Sql, codes: string[]): Promise<void> {
  if (codes.length === 0) return;
  await sql.query('DELETE FROM link_code_claims WHERE code = ANY($1::text[])', [codes]);
}
