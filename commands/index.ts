import { accountCommands } from './accounts/index.js';
import { recordCatalogEntry } from './catalog/entry-record.js';
import type { Command } from './command.js';
import { explainTargeting } from './offers/explain-targeting.js';
import { registerLink } from './offers/link-register.js';
import { publishSnapshot } from './offers/publish-snapshot.js';
import { upsertOffer } from './offers/upsert.js';
import { configurePartner } from './partners/configure.js';

/** Every admin command; the CLI and the admin HTTP API are both built from this list. */
export const adminCommands: Command[] = [recordCatalogEntry, ...accountCommands, configurePartner, upsertOffer, publishSnapshot, registerLink, explainTargeting];
