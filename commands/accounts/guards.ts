import type { Sql } from '../../platform/db/db.js';
import {
  findApiKey,
  findApplication,
  findDeveloper,
  findPlacement,
  type ApiKey,
  type Application,
  type Developer,
  type Placement,
} from '../../projections/accounts/queries.js';
import { CommandInputError, CommandNotFoundError } from '../command.js';
import { notYetHint } from './schema.js';

/** Read-model checks shared by the commands; each error names the input field it is about. */

export async function requireDeveloper(sql: Sql, developerId: string, field = 'developer_id'): Promise<Developer> {
  const developer = await findDeveloper(sql, developerId);
  if (!developer) throw new CommandNotFoundError(field, `no developer ${developerId} ${notYetHint}`);
  return developer;
}

export async function requireApplication(sql: Sql, applicationId: string, field = 'application_id'): Promise<Application> {
  const application = await findApplication(sql, applicationId);
  if (!application) throw new CommandNotFoundError(field, `no application ${applicationId} ${notYetHint}`);
  return application;
}

export async function requirePlacement(sql: Sql, placementId: string, field = 'placement_id'): Promise<Placement> {
  const placement = await findPlacement(sql, placementId);
  if (!placement) throw new CommandNotFoundError(field, `no placement ${placementId} ${notYetHint}`);
  return placement;
}

export async function requireApiKey(sql: Sql, keyId: string, field = 'key_id'): Promise<ApiKey> {
  const key = await findApiKey(sql, keyId);
  if (!key) throw new CommandNotFoundError(field, `no API key ${keyId} ${notYetHint}`);
  return key;
}

/**
 * New keys and placements go only to applications that may come back to serving: not to a
 * suspended application, nor to any application of a suspended developer. Paused ones may get
 * them (pausing is temporary).
 */
export async function requireApplicationAcceptingCredentials(sql: Sql, applicationId: string, field = 'application_id') {
  const application = await requireApplication(sql, applicationId, field);
  if (application.status === 'suspended') {
    throw new CommandInputError(field, `application ${applicationId} is suspended; reinstate it first`);
  }
  if (application.developer_status === 'suspended') {
    throw new CommandInputError(field, `the developer ${application.developer_id} of application ${applicationId} is suspended; reinstate it first`);
  }
  return application;
}

/** A status change must change something: a no-op would only add noise to the log. */
export function requireNewStatus(current: string, next: string, what: string) {
  if (current === next) throw new CommandInputError('status', `${what} is already ${next}`);
}
