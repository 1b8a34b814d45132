import { isAbsoluteWebUrl } from '../../../../commands/clicks/destination.js';
import { memoized } from '../../../../platform/cache/bounded-memo.js';

/** `action.type` of a card whose tracked short link opens in a browser: the only action a card has. */
export const URL_ACTION_TYPE = 'url';

export interface CardAction {
  type: typeof URL_ACTION_TYPE;
  payload: { url: string };
}

/** Answers already worked out: destinations repeat across many cards, and parsing a URL is not free. */
const openable = new Map<string, boolean>();
const MAX_REMEMBERED = 10_000;

/**
 * Whether a frozen destination can be opened from a card: an absolute http or https URL with a
 * host (an https universal link qualifies). App deep links (custom schemes) never do.
 */
export function isOpenableDestination(destination: string | null): boolean {
  return destination ? memoized(openable, MAX_REMEMBERED, destination, parsesAsWebUrl) : false;
}

function parsesAsWebUrl(destination: string): boolean {
  if (!isAbsoluteWebUrl(destination)) return false;
  try {
    const url = new URL(destination);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The card's action, the same on Query and the instance route: its tracked short link as served. */
export const linkAction = (linkUrl: string): CardAction => ({ type: URL_ACTION_TYPE, payload: { url: linkUrl } });
