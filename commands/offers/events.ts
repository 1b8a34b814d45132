import type { NewEvent } from '../../platform/events/event-log.js';
import type { EventValues } from '../../schemas/generated/events.js';
import { newEvent, type EventOf } from '../append.js';

/** An offers event, keyed by its offer so an offer's upserts, snapshots and links keep their order. */
export function offerEvent<T extends EventOf<'offers'>>(type: T, value: EventValues[T]): NewEvent {
  return newEvent(type, value.offer_id, value);
}
