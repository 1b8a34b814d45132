import type { LoggedEvent } from '../../platform/events/event-log.js';
import {
  EventType,
  type ApiKeyIssued,
  type ApiKeyRevoked,
  type ApplicationRegistered,
  type ApplicationStatusChanged,
  type DefaultPlacementDesignated,
  type DeveloperRegistered,
  type DeveloperStatusChanged,
  type PlacementCreated,
  type PlacementStatusChanged,
} from '../../schemas/generated/events.js';

/** Position and identity of the event that last touched a row. */
interface Stamp {
  last_offset: string;
  last_event_id: string;
}

export interface StatusChange extends Stamp {
  status: string;
  reason: string | null;
  changed_at: Date;
}

export interface DeveloperRow extends Stamp {
  developer_id: string;
  name: string;
  email: string;
  status: string;
  status_reason: string | null;
  registered_at: Date;
  status_changed_at: Date;
}

export interface ApplicationRow extends Stamp {
  application_id: string;
  developer_id: string;
  name: string;
  status: string;
  status_reason: string | null;
  registered_at: Date;
  status_changed_at: Date;
}

export interface PlacementRow extends Stamp {
  placement_id: string;
  application_id: string;
  name: string;
  status: string;
  created_at: Date;
  status_changed_at: Date;
}

export interface ApiKeyRow {
  key_id: string;
  kind: string;
  key_hash: string;
  display_prefix: string;
  application_id: string | null;
  label: string | null;
  issued_at: Date;
  last_event_id: string;
}

export interface Revocation {
  revoked_at: Date;
  reason: string | null;
  last_event_id: string;
}

export interface Designation extends Stamp {
  placement_id: string;
  application_id: string;
  designated_at: Date;
}

/**
 * The effect of one batch (one partition), folded so each table gets one set-based write:
 * rows created in the batch carry their final state; status changes of rows created earlier are
 * kept as the last change per row.
 */
export interface AccountChanges {
  developers: Map<string, DeveloperRow>;
  developerStatus: Map<string, StatusChange>;
  applications: Map<string, ApplicationRow>;
  applicationStatus: Map<string, StatusChange>;
  placements: Map<string, PlacementRow>;
  placementStatus: Map<string, StatusChange>;
  keys: Map<string, ApiKeyRow>;
  revocations: Map<string, Revocation>;
  designation?: Designation;
}

function emptyChanges(): AccountChanges {
  return {
    developers: new Map(),
    developerStatus: new Map(),
    applications: new Map(),
    applicationStatus: new Map(),
    placements: new Map(),
    placementStatus: new Map(),
    keys: new Map(),
    revocations: new Map(),
  };
}

/** Applies a status change to a row created in this batch, or records it for an older row. */
function changeStatus<R extends Stamp & { status: string; status_changed_at: Date }>(
  rows: Map<string, R>,
  pending: Map<string, StatusChange>,
  id: string,
  change: StatusChange,
) {
  const row = rows.get(id);
  if (!row) {
    pending.set(id, change);
    return;
  }
  row.status = change.status;
  row.status_changed_at = change.changed_at;
  if ('status_reason' in row) (row as { status_reason: string | null }).status_reason = change.reason;
  row.last_offset = change.last_offset;
  row.last_event_id = change.last_event_id;
}

export function evolve(events: LoggedEvent[]): AccountChanges {
  const changes = emptyChanges();
  for (const event of events) {
    const stamp = (eventId: string): Stamp => ({ last_offset: event.offset, last_event_id: eventId });
    switch (event.type) {
      case EventType.DeveloperRegistered: {
        const v = event.value as unknown as DeveloperRegistered;
        const at = new Date(v.registered_at);
        changes.developers.set(v.developer_id, {
          developer_id: v.developer_id, name: v.name, email: v.email, status: 'active', status_reason: null,
          registered_at: at, status_changed_at: at, ...stamp(v.event_id),
        });
        break;
      }
      case EventType.DeveloperStatusChanged: {
        const v = event.value as unknown as DeveloperStatusChanged;
        changeStatus(changes.developers, changes.developerStatus, v.developer_id, {
          status: v.status, reason: v.reason, changed_at: new Date(v.changed_at), ...stamp(v.event_id),
        });
        break;
      }
      case EventType.ApplicationRegistered: {
        const v = event.value as unknown as ApplicationRegistered;
        const at = new Date(v.registered_at);
        changes.applications.set(v.application_id, {
          application_id: v.application_id, developer_id: v.developer_id, name: v.name, status: v.status,
          status_reason: null, registered_at: at, status_changed_at: at, ...stamp(v.event_id),
        });
        break;
      }
      case EventType.ApplicationStatusChanged: {
        const v = event.value as unknown as ApplicationStatusChanged;
        changeStatus(changes.applications, changes.applicationStatus, v.application_id, {
          status: v.status, reason: v.reason, changed_at: new Date(v.changed_at), ...stamp(v.event_id),
        });
        break;
      }
      case EventType.PlacementCreated: {
        const v = event.value as unknown as PlacementCreated;
        const at = new Date(v.created_at);
        changes.placements.set(v.placement_id, {
          placement_id: v.placement_id, application_id: v.application_id, name: v.name, status: v.status,
          created_at: at, status_changed_at: at, ...stamp(v.event_id),
        });
        break;
      }
      case EventType.PlacementStatusChanged: {
        const v = event.value as unknown as PlacementStatusChanged;
        changeStatus(changes.placements, changes.placementStatus, v.placement_id, {
          status: v.status, reason: null, changed_at: new Date(v.changed_at), ...stamp(v.event_id),
        });
        break;
      }
      case EventType.ApiKeyIssued: {
        const v = event.value as unknown as ApiKeyIssued;
        changes.keys.set(v.key_id, {
          key_id: v.key_id, kind: v.kind, key_hash: v.key_hash, display_prefix: v.display_prefix,
          application_id: v.application_id, label: v.label, issued_at: new Date(v.issued_at), last_event_id: v.event_id,
        });
        break;
      }
      case EventType.ApiKeyRevoked: {
        const v = event.value as unknown as ApiKeyRevoked;
        // Revocation is terminal: the first one counts.
        if (!changes.revocations.has(v.key_id)) {
          changes.revocations.set(v.key_id, { revoked_at: new Date(v.revoked_at), reason: v.reason, last_event_id: v.event_id });
        }
        break;
      }
      case EventType.DefaultPlacementDesignated: {
        const v = event.value as unknown as DefaultPlacementDesignated;
        changes.designation = {
          placement_id: v.placement_id, application_id: v.application_id, designated_at: new Date(v.designated_at), ...stamp(v.event_id),
        };
        break;
      }
      default:
        break;
    }
  }
  return changes;
}
