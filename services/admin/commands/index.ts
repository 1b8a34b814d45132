import type { AdminCommand } from '../command.js';
import { accountCommands } from './accounts/index.js';
import { recordCatalogEntry } from './catalog-entry.js';
import { offerCommands } from './offer-commands.js';

/** Every admin command; the CLI and the admin HTTP API are both built from this list. */
export const adminCommands: AdminCommand[] = [recordCatalogEntry, ...accountCommands, ...offerCommands];
