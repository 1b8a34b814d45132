import type { PostbackReceived } from '../../schemas/generated/events.js';

/**
 * The key a PostbackReceived is logged under: partner and business identity, so every postback of
 * one identity lands on one partition and its ledger decides them in log order.
 */
export const postbackLogKey = (event: Pick<PostbackReceived, 'partner_id' | 'identity_key'>) => `${event.partner_id}:${event.identity_key}`;
