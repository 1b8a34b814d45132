import type { AdminCommand } from '../command.js';
import { recordCatalogEntry } from './catalog-entry.js';

/** Every admin command; the CLI and the admin HTTP API are both built from this list. */
export const adminCommands: AdminCommand[] = [recordCatalogEntry];
