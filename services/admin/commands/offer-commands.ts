import type { AdminCommand } from '../command.js';
import { registerLink } from './link-register.js';
import { publishSnapshot } from './offer-snapshot.js';
import { upsertOffer } from './offer-upsert.js';
import { configurePartner } from './partner-configure.js';

/** Partner, offer, snapshot and link commands. */
export const offerCommands: AdminCommand[] = [configurePartner, upsertOffer, publishSnapshot, registerLink];
