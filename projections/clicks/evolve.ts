import type { LoggedEvent } from '../../platform/events/event-log.js';
import { EventType, type LinkClicked } from '../../schemas/generated/events.js';

export type ClickRow = Omit<LinkClicked, 'clicked_at'> & { clicked_at: Date };

/** One row per click id; the first event of an id wins (an id is minted once). Pure. */
export function evolveClicks(events: LoggedEvent[]): ClickRow[] {
  const rows = new Map<string, ClickRow>();
  for (const event of events) {
    if (event.type !== EventType.LinkClicked) continue;
    const value = event.value as unknown as LinkClicked;
    if (!rows.has(value.svc_click_id)) rows.set(value.svc_click_id, { ...value, clicked_at: new Date(value.clicked_at) });
  }
  return [...rows.values()];
}
