import { accountEvent, issueApiKey, newId } from '../../../commands/accounts/events.js';
import { activeOrNextSandboxKey } from '../../../commands/accounts/sandbox-key-ensure.js';
import { appendEvents } from '../../../commands/append.js';
import { keyHashSecretOf } from '../../../platform/config/key-hash-secret.js';
import type { NewEvent } from '../../../platform/events/event-log.js';
import {
  EventType,
  type ApiKeyKind,
  type ApplicationStatus,
  type DeveloperStatus,
  type PlacementStatus,
} from '../../../schemas/generated/events.js';
import type { SeedContext } from './seed-context.js';

/**
 * What the accounts phase leaves in `context.shared` for later phases (serves, links, …), by key.
 * Clear keys are kept in memory only, for phases that call the API; they are never printed.
 */
export const ACCOUNTS_SHARED = {
  /** SeededDeveloper[] */
  developers: 'developers',
  /** SeededApplication[] (the default application included) */
  applications: 'applications',
  /** SeededPlacement[] */
  placements: 'placements',
  /** SeededApiKey[] (live and test keys) */
  apiKeys: 'apiKeys',
  /** { application_id, placement_id }: where anonymous Query requests are served */
  defaultPlacement: 'defaultPlacement',
  /** { key_id, key }: the shared public sandbox key */
  sandboxKey: 'sandboxKey',
} as const;

export interface SeededDeveloper {
  developer_id: string;
  name: string;
  status: DeveloperStatus;
}
export interface SeededApplication {
  application_id: string;
  developer_id: string;
  name: string;
  status: ApplicationStatus;
  developer_status: DeveloperStatus;
  placement_ids: string[];
}
export interface SeededPlacement {
  placement_id: string;
  application_id: string;
  status: PlacementStatus;
}
export interface SeededApiKey {
  key_id: string;
  kind: Exclude<ApiKeyKind, 'sandbox'>;
  application_id: string;
  key: string;
  revoked: boolean;
}

export interface AccountsPlan {
  events: NewEvent[];
  developers: SeededDeveloper[];
  applications: SeededApplication[];
  placements: SeededPlacement[];
  apiKeys: SeededApiKey[];
  defaultPlacement: { application_id: string; placement_id: string };
}

const COMPANIES = ['Northwind', 'Blue Harbor', 'Pixel Forge', 'Lumen', 'Quartz', 'Tidal', 'Orchid', 'Cobalt', 'Maple Leaf', 'Redwood', 'Sable', 'Juniper'];
const SUFFIXES = ['Games', 'Labs', 'Studio', 'Apps', 'Media', 'Software'];
const APPS = ['Puzzle Quest', 'Daily Rewards', 'Fit Tracker', 'Word Blitz', 'Recipe Box', 'Cash Quest', 'Sky Runner', 'Habit Hero', 'Trivia Night', 'Coin Garden'];
const PLACEMENTS = ['offer wall', 'level complete', 'home feed', 'rewards tab', 'exit survey'];
const DAY = 86_400_000;

/** The statuses every data set must contain, so each branch of the offer routes has data. */
const REQUIRED_APPLICATION_STATUSES: ApplicationStatus[] = ['live', 'live_limited', 'paused', 'suspended'];

/**
 * Plans the accounts data set: every event in log order, and what it creates. The shape
 * (counts, names, statuses, which keys are revoked) follows `random`, so a seed value always
 * gives the same data set. Ids are UUIDv7 and keys come from the system's secure generator:
 * a predictable live key would be a real credential in any environment that was seeded.
 */
export function planAccounts(context: Pick<SeedContext, 'size' | 'random' | 'now'>, secret: string): AccountsPlan {
  const { random } = context;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const chance = (p: number) => random() < p;
  const nowMs = context.now().getTime();
  const plan: AccountsPlan = { events: [], developers: [], applications: [], placements: [], apiKeys: [], defaultPlacement: { application_id: '', placement_id: '' } };
  const add = (event: NewEvent) => plan.events.push(event);

  const developerCount = context.size.developers;
  for (let d = 0; d < developerCount; d += 1) {
    // Developer 0 is the house account owning the default application; developer 1 stays active
    // with one application in each status; the last one is suspended.
    const house = d === 0;
    const name = house ? 'Offer Ledger (house)' : `${pick(COMPANIES)} ${pick(SUFFIXES)}`;
    const status: DeveloperStatus = d > 1 && (d === developerCount - 1 || chance(0.12)) ? 'suspended' : 'active';
    let t = nowMs - (400 - Math.floor(random() * 100)) * DAY;
    const developerId = newId();
    add(accountEvent(EventType.DeveloperRegistered, {
      event_id: newId(), developer_id: developerId, name, email: house ? HOUSE_EMAIL : `dev${d}@${name.toLowerCase().replace(/[^a-z]+/g, '-')}.example`, registered_at: t,
    }));
    plan.developers.push({ developer_id: developerId, name, status });

    const applicationCount = house ? 1 : context.size.applicationsPerDeveloper;
    for (let a = 0; a < applicationCount; a += 1) {
      // Developer 1 gets one application in each status; the others follow a realistic mix.
      const appStatus: ApplicationStatus = house
        ? 'live'
        : d === 1 && a < REQUIRED_APPLICATION_STATUSES.length
          ? REQUIRED_APPLICATION_STATUSES[a]!
          : pick(['live', 'live', 'live', 'live', 'live', 'live_limited', 'live_limited', 'paused', 'suspended'] as const);
      t += Math.floor(random() * 20 * DAY);
      const applicationId = newId();
      const appName = house ? 'Anonymous serving' : `${pick(APPS)}${a > 0 ? ` ${a + 1}` : ''}`;
      // New applications start limited and are promoted after review.
      const startStatus: ApplicationStatus = appStatus === 'live_limited' || appStatus === 'live' ? 'live_limited' : 'live';
      add(accountEvent(EventType.ApplicationRegistered, {
        event_id: newId(), application_id: applicationId, developer_id: developerId, name: appName, status: startStatus, registered_at: t,
      }));
      const application: SeededApplication = { application_id: applicationId, developer_id: developerId, name: appName, status: appStatus, developer_status: status, placement_ids: [] };
      plan.applications.push(application);

      const placementCount = house ? 1 : 1 + Math.floor(random() * 3);
      for (let p = 0; p < placementCount; p += 1) {
        const placementId = newId();
        const inactive = !house && p > 0 && chance(0.2);
        add(accountEvent(EventType.PlacementCreated, {
          event_id: newId(), placement_id: placementId, application_id: applicationId, name: house ? 'default' : PLACEMENTS[p % PLACEMENTS.length]!, status: 'active', created_at: t + DAY,
        }));
        if (inactive) {
          add(accountEvent(EventType.PlacementStatusChanged, { event_id: newId(), placement_id: placementId, application_id: applicationId, status: 'inactive', changed_at: t + 30 * DAY }));
        }
        plan.placements.push({ placement_id: placementId, application_id: applicationId, status: inactive ? 'inactive' : 'active' });
        application.placement_ids.push(placementId);
      }

      const issue = (kind: 'live' | 'test', label: string, at: number) => {
        const issued = issueApiKey(secret, { kind, application_id: applicationId, label, issued_at: new Date(at) });
        add(issued.event);
        const key: SeededApiKey = { key_id: issued.value.key_id, kind, application_id: applicationId, key: issued.key, revoked: false };
        plan.apiKeys.push(key);
        return key;
      };
      const revoke = (key: SeededApiKey, reason: string, at: number) => {
        add(accountEvent(EventType.ApiKeyRevoked, { event_id: newId(), key_id: key.key_id, application_id: applicationId, reason, revoked_at: at }));
        key.revoked = true;
      };
      const first = issue('live', 'production server', t + DAY);
      if (!house && (chance(0.3) || (d === 1 && a === 0))) {
        // A rotation: the old key is revoked once the new one is out.
        issue('live', 'production server (rotated)', t + 60 * DAY);
        revoke(first, 'rotated', t + 61 * DAY);
      }
      if (!house && (chance(0.5) || (d === 1 && a === 0))) issue('test', 'staging', t + 2 * DAY);

      if (startStatus !== appStatus) {
        add(accountEvent(EventType.ApplicationStatusChanged, {
          event_id: newId(), application_id: applicationId, status: appStatus, reason: appStatus === 'live' ? 'review passed' : `set to ${appStatus} by seed`, changed_at: t + 14 * DAY,
        }));
      }
      if (house) {
        plan.defaultPlacement = { application_id: applicationId, placement_id: application.placement_ids[0]! };
        add(accountEvent(EventType.DefaultPlacementDesignated, { event_id: newId(), ...plan.defaultPlacement, designated_at: t + 2 * DAY }));
      }
    }
    if (status === 'suspended') {
      add(accountEvent(EventType.DeveloperStatusChanged, { event_id: newId(), developer_id: developerId, status, reason: 'terms violation', changed_at: nowMs - DAY }));
    }
  }
  return plan;
}

const CHUNK = 500;

/**
 * Seeds developers (active and suspended), applications in every status, live and test keys
 * (some revoked), placements (some inactive), the default application and placement, and the
 * shared sandbox key, all through accounts events. Later phases read the ids from
 * `context.shared` (see ACCOUNTS_SHARED), never from the read model, so nothing waits on projection.
 */
/** The house developer's email: its presence means the database was seeded already. */
export const HOUSE_EMAIL = 'dev0@house.example';

export async function seedAccounts(context: SeedContext): Promise<void> {
  const secret = keyHashSecretOf(context.runtime.config);
  const plan = planAccounts(context, secret);
  // An active sandbox key from an earlier run is reused; otherwise the next generation is issued.
  const sandbox = await activeOrNextSandboxKey(context.runtime.db, secret, context.now());
  const events = sandbox.event ? [...plan.events, sandbox.event] : plan.events;

  const bar = context.progress('accounts', events.length);
  for (let start = 0; start < events.length; start += CHUNK) {
    const chunk = events.slice(start, start + CHUNK);
    await appendEvents(context.runtime, 'accounts', chunk);
    bar.tick(chunk.length);
  }
  bar.done();

  context.shared.set(ACCOUNTS_SHARED.developers, plan.developers);
  context.shared.set(ACCOUNTS_SHARED.applications, plan.applications);
  context.shared.set(ACCOUNTS_SHARED.placements, plan.placements);
  context.shared.set(ACCOUNTS_SHARED.apiKeys, plan.apiKeys);
  context.shared.set(ACCOUNTS_SHARED.defaultPlacement, plan.defaultPlacement);
  context.shared.set(ACCOUNTS_SHARED.sandboxKey, { key_id: sandbox.key_id, key: sandbox.key });
}
