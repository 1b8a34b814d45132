import type { Sql } from '../../platform/db/db.js';
import type { ApiKeyKind, ApplicationStatus, DeveloperStatus, PlacementStatus } from '../../schemas/generated/events.js';

/** Reads of the accounts read model used by the admin commands and, later, by the routes. */

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
