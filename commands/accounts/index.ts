import type { Command } from '../command.js';
import { issueKey } from './api-key-issue.js';
import { revokeKey } from './api-key-revoke.js';
import { registerApplication } from './application-register.js';
import { setApplicationStatus } from './application-set-status.js';
import { designateDefaultPlacement } from './default-placement-designate.js';
import { registerDeveloper } from './developer-register.js';
import { setDeveloperStatus } from './developer-set-status.js';
import { createPlacement } from './placement-create.js';
import { setPlacementStatus } from './placement-set-status.js';
import { ensureSandboxKey } from './sandbox-key-ensure.js';

/** The accounts commands: developers, applications, API keys, placements, the default placement. */
export const accountCommands: Command[] = [
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
