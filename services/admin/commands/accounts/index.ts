import type { AdminCommand } from '../../command.js';
import { issueKey, ensureSandboxKey, revokeKey } from './api-key.js';
import { registerApplication, setApplicationStatus } from './application.js';
import { registerDeveloper, setDeveloperStatus } from './developer.js';
import { createPlacement, designateDefaultPlacement, setPlacementStatus } from './placement.js';

/** The accounts commands: developers, applications, API keys, placements, the default placement. */
export const accountCommands: AdminCommand[] = [
  registerDeveloper,
  setDeveloperStatus,
  registerApplication,
  setApplicationStatus,
  issueKey,
  revokeKey,
  ensureSandboxKey,
  createPlacement,
  setPlacementStatus,
  designateDefaultPlacement,
];
