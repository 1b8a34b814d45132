import { timingSafeEqual } from 'node:crypto';
import type { Sql } from '../../platform/db/db.js';
import type { ApiKeyKind, ApplicationStatus, DeveloperStatus, PlacementStatus } from '../../schemas/generated/events.js';
import { hashApiKey, MAX_PRESENTED_KEY_LENGTH } from './api-keys.js';

/** Reads of the accounts read model: by the admin commands and by the routes (keys, placements). */

export interface Developer {
  developer_id: string;
  name: string;
  email: string;
  status: DeveloperStatus;
}

export interface Application {
  application_id: string;
  developer_id: string;
  name: string;
  status: ApplicationStatus;
  /** Null while the developer's registration is not projected yet (another partition). */
  developer_status: DeveloperStatus | null;
}

export interface ApiKey {
  key_id: string;
  kind: ApiKeyKind;
  display_prefix: string;
  application_id: string | null;
  revoked: boolean;
}

export interface Placement {
  placement_id: string;
  application_id: string;
  name: string;
  status: PlacementStatus;
}

export async function findDeveloper(sql: Sql, developerId: string): Promise<Developer | undefined> {
  const { rows } = await sql.query<Developer>(
    'SELECT developer_id, name, email, status FROM account_developers WHERE developer_id = $1',
    [developerId],
  );
  return rows[0];
}

/** The developer registered with this (lowercased) email, if any: emails are unique across accounts. */
export async function findDeveloperByEmail(sql: Sql, email: string): Promise<Developer | undefined> {
  const { rows } = await sql.query<Developer>('SELECT developer_id, name, email, status FROM account_developers WHERE email = $1', [email]);
  return rows[0];
}

export async function findApplication(sql: Sql, applicationId: string): Promise<Application | undefined> {
  const { rows } = await sql.query<Application>(
    `SELECT a.application_id, a.developer_id, a.name, a.status, d.status AS developer_status
     FROM account_applications a LEFT JOIN account_developers d USING (developer_id)
     WHERE a.application_id = $1`,
    [applicationId],
  );
  return rows[0];
}

export async function findApiKey(sql: Sql, keyId: string): Promise<ApiKey | undefined> {
  const { rows } = await sql.query<ApiKey>(
    `SELECT key_id, kind, display_prefix, application_id, revoked_at IS NOT NULL AS revoked
     FROM account_api_keys WHERE key_id = $1`,
    [keyId],
  );
  return rows[0];
}

export async function findPlacement(sql: Sql, placementId: string): Promise<Placement | undefined> {
  const { rows } = await sql.query<Placement>(
    'SELECT placement_id, application_id, name, status FROM account_placements WHERE placement_id = $1',
    [placementId],
  );
  return rows[0];
}

/** findPlacement for many placements in one statement: the known ones by id; unknown ids are absent. */
export async function findPlacements(sql: Sql, placementIds: readonly string[]): Promise<Map<string, Placement>> {
  if (placementIds.length === 0) return new Map();
  const { rows } = await sql.query<Placement>(
    'SELECT placement_id, application_id, name, status FROM account_placements WHERE placement_id = ANY($1::text[])',
    [placementIds],
  );
  return new Map(rows.map((row) => [row.placement_id, row]));
}


/** Every sandbox key issued so far, oldest first, with its hash and whether it is revoked. */
export async function sandboxKeyHistory(sql: Sql): Promise<{ key_id: string; key_hash: string; revoked: boolean }[]> {
  const { rows } = await sql.query<{ key_id: string; key_hash: string; revoked: boolean }>(
    `SELECT key_id, key_hash, revoked_at IS NOT NULL AS revoked FROM account_api_keys WHERE kind = 'sandbox' ORDER BY issued_at, key_id`,
  );
  return rows;
}

export interface DefaultPlacement {
  placement_id: string;
  application_id: string;
  /** Null when the designated placement or application is not projected yet. */
  placement_status: PlacementStatus | null;
  application_status: ApplicationStatus | null;
  developer_status: DeveloperStatus | null;
}

/** Where anonymous Query requests are served; undefined when none was designated. */
export async function findDefaultPlacement(sql: Sql): Promise<DefaultPlacement | undefined> {
  const { rows } = await sql.query<DefaultPlacement>(
    `SELECT dp.placement_id, dp.application_id, p.status AS placement_status, a.status AS application_status, d.status AS developer_status
     FROM account_default_placement dp
     LEFT JOIN account_placements p ON p.placement_id = dp.placement_id
     LEFT JOIN account_applications a ON a.application_id = dp.application_id
     LEFT JOIN account_developers d ON d.developer_id = a.developer_id`,
  );
  return rows[0];
}
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
  kind: ApiKeyKind;
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
