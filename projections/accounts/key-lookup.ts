import { timingSafeEqual } from 'node:crypto';
import type { Sql } from '../../platform/db/db.js';
import type { ApplicationStatus, DeveloperStatus } from '../../schemas/generated/events.js';
import { hashApiKey, MAX_PRESENTED_KEY_LENGTH } from './api-keys.js';

/**
 * What a presented API key is, for the authenticating routes:
 * - `unknown`: no such key (or a malformed one, or its application/developer not projected yet:
 *   we fail closed rather than guess a status);
 * - `revoked`: it existed and was revoked;
 * - `sandbox`: the shared public sandbox key (no application);
 * - `live` / `test`: an application-owned key, with its application's and developer's status.
 */
export type KeyLookup =
  | { kind: 'unknown' }
  | { kind: 'revoked'; key_id: string }
  | { kind: 'sandbox'; key_id: string }
  | {
      kind: 'live' | 'test';
      key_id: string;
      application_id: string;
      application_status: ApplicationStatus;
      developer_id: string;
      developer_status: DeveloperStatus;
    };

interface KeyRow {
  key_id: string;
  kind: 'live' | 'test' | 'sandbox';
  key_hash: string;
  revoked: boolean;
  application_id: string | null;
  application_status: ApplicationStatus | null;
  developer_id: string | null;
  developer_status: DeveloperStatus | null;
}

// Compared against when no row matched, so unknown keys cost the same comparison as known ones.
const NO_MATCH = Buffer.alloc(32);

/**
 * Looks a presented key up by its keyed hash (unique index) and confirms the match with a
 * constant-time comparison of the digests. The clear key is never stored, logged or returned.
 */
export async function lookupApiKey(sql: Sql, secret: string, presented: string): Promise<KeyLookup> {
  if (presented.length === 0 || presented.length > MAX_PRESENTED_KEY_LENGTH) return { kind: 'unknown' };
  const hash = hashApiKey(secret, presented);
  const { rows } = await sql.query<KeyRow>(
    `SELECT k.key_id, k.kind, k.key_hash, k.revoked_at IS NOT NULL AS revoked, k.application_id,
            a.status AS application_status, a.developer_id, d.status AS developer_status
     FROM account_api_keys k
     LEFT JOIN account_applications a ON a.application_id = k.application_id
     LEFT JOIN account_developers d ON d.developer_id = a.developer_id
     WHERE k.key_hash = $1`,
    [hash],
  );
  const row = rows[0];
  const expected = Buffer.from(hash, 'hex');
  const stored = row ? Buffer.from(row.key_hash, 'hex') : NO_MATCH;
  const matches = stored.length === expected.length && timingSafeEqual(stored, expected);
  if (!row || !matches) return { kind: 'unknown' };
  if (row.revoked) return { kind: 'revoked', key_id: row.key_id };
  if (row.kind === 'sandbox') return { kind: 'sandbox', key_id: row.key_id };
  if (!row.application_id || !row.application_status || !row.developer_id || !row.developer_status) return { kind: 'unknown' };
  return {
    kind: row.kind,
    key_id: row.key_id,
    application_id: row.application_id,
    application_status: row.application_status,
    developer_id: row.developer_id,
    developer_status: row.developer_status,
  };
}
