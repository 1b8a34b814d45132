import { uuidV7 } from '../../platform/ids/uuid-v7.js';
import type { NewEvent } from '../../platform/events/event-log.js';
import { displayPrefix, hashApiKey, newApiKey } from '../../projections/accounts/api-keys.js';
import { EventType, type ApiKeyIssued, type EventValues } from '../../schemas/generated/events.js';
import { newEvent, type EventOf } from '../append.js';

/** Partition key of DefaultPlacementDesignated: one key, so designations keep their order. */
export const DEFAULT_PLACEMENT_KEY = 'default-placement';

type AccountEventType = EventOf<'accounts'>;

/**
 * The partition key of an accounts event: developer events by developer, everything an
 * application owns (itself, its keys, its placements) by application, so each history is ordered.
 */
function partitionKey(type: AccountEventType, value: Record<string, unknown>): string {
  switch (type) {
    case EventType.DeveloperRegistered:
    case EventType.DeveloperStatusChanged:
      return value.developer_id as string;
    case EventType.DefaultPlacementDesignated:
      return DEFAULT_PLACEMENT_KEY;
    case EventType.ApiKeyIssued:
    case EventType.ApiKeyRevoked:
      // The shared sandbox key has no application: its own id keeps its issue and revocation together.
      return (value.application_id as string | null) ?? (value.key_id as string);
    default:
      return value.application_id as string;
  }
}

/** One accounts event, typed by its schema, with its partition key. */
export function accountEvent<T extends AccountEventType>(type: T, value: EventValues[T]): NewEvent {
  return newEvent(type, partitionKey(type, { ...value }), value);
}

/** New canonical lowercase UUIDv7 (entity ids and event ids alike). */
export const newId = (): string => uuidV7();

/**
 * A new live or test key and its ApiKeyIssued event. The clear key is returned to the caller
 * only; the event carries its keyed hash and display prefix.
 */
export function issueApiKey(
  secret: string,
  input: { kind: 'live' | 'test'; application_id: string; label: string | null; issued_at: Date },
): { key: string; event: NewEvent; value: ApiKeyIssued } {
  const key = newApiKey(input.kind);
  const value: ApiKeyIssued = {
    event_id: newId(),
    key_id: newId(),
    kind: input.kind,
    key_hash: hashApiKey(secret, key),
    display_prefix: displayPrefix(key),
    application_id: input.application_id,
    label: input.label,
    issued_at: input.issued_at.getTime(),
  };
  return { key, event: accountEvent(EventType.ApiKeyIssued, value), value };
}
