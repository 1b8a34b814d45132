import { html, pathWithQuery, type SafeHtml } from '../../../../../platform/http/html.js';
import type { PostbackLogEntry } from '../../../../../projections/ledger/queries.js';
import type { PostbackRefusal } from '../../../postback-refusals.js';

/** Pieces of the postback pages shared by the listing and the detail view. */

const PAGE_PATH = '/admin/postbacks';
export const detailPath = (correlationId: string) => `${PAGE_PATH}/${encodeURIComponent(correlationId)}`;
export const searchPath = (query: Record<string, string | undefined>) => pathWithQuery(PAGE_PATH, query);

/** A stored time as the exports and the refusals print it: milliseconds, unless it has finer digits. */
export const timeText = (time: string) => time.replace(/(\.\d{3})000Z$/, '$1Z');

export const decisionBadge = (decision: string) => html`<span class="decision ${decision}">${decision.replaceAll('_', ' ')}</span>`;

/** Why the ledger decided as it did, in words. */
export function reasonOf(entry: PostbackLogEntry): SafeHtml {
  const original = html`<a class="id" href="${detailPath(entry.original_correlation_id)}">${entry.original_correlation_id}</a>`;
  switch (entry.decision) {
    case 'accepted':
      return html`recorded and counted: goal <code>${entry.goal_event}</code>`;
    case 'unmapped':
      return html`recorded, not counted: event <code>${entry.event_name}</code> maps to no goal of the offer`;
    case 'already_recorded':
      return html`same identity and payload as the recorded conversion ${original}`;
    case 'identity_conflict':
      return html`same identity as the recorded conversion ${original}, different payload: logged, not counted`;
  }
}

/** The identity the ledger keyed the postback by, and the other identity fields sent. */
export function identityOf(entry: Pick<PostbackLogEntry, 'identity_kind' | 'event_id' | 'order_id' | 'partner_txn_id' | 'event_name'>): SafeHtml {
  const fields = [
    ['event_id', entry.event_id],
    ['order_id', entry.order_id],
    ['partner_txn_id', entry.partner_txn_id],
  ] as const;
  return html`${fields
    .filter(([, value]) => value !== null)
    .map(([name, value]) => html`<div${name === entry.identity_kind ? html` title="the identity"` : ''}>${name === entry.identity_kind ? html`<b>${name}</b>` : name}: <code>${value}</code></div>`)}
<div class="muted">event <code>${entry.event_name}</code></div>`;
}

/** matched_by → click → card → offer, each linked to its postbacks. */
export function attributionPath(entry: Pick<PostbackLogEntry, 'matched_by' | 'svc_click_id' | 'offer_instance_id' | 'offer_id'>): SafeHtml {
  const step = (label: string, id: string | null, href?: string) =>
    id === null ? html`<span class="muted">${label} —</span>` : html`<span>${label} ${href ? html`<a class="id" href="${href}">${id}</a>` : html`<span class="id">${id}</span>`}</span>`;
  return html`<div class="path"><span>matched by <b>${entry.matched_by}</b></span> →
${step('click', entry.svc_click_id, entry.svc_click_id ? searchPath({ click_id: entry.svc_click_id }) : undefined)} →
${step('card', entry.offer_instance_id, entry.offer_instance_id ? searchPath({ instance_id: entry.offer_instance_id }) : undefined)} →
${step('offer', entry.offer_id)}</div>`;
}

/** The payout priced for the postback; only an accepted one counts it (a duplicate's was counted once, by its conversion). */
export function payoutOf(entry: { payout_amount: string | null; payout_currency: string | null; decision?: string; status?: string }): SafeHtml {
  if (entry.payout_amount === null) return html`<span class="muted">none</span>`;
  const counted = (entry.decision ?? entry.status) === 'accepted';
  return html`${entry.payout_amount} ${entry.payout_currency}${counted ? '' : html` <span class="muted">(not counted)</span>`}`;
}

export const positionOf = (entry: { log_partition: number; log_offset: string }) => html`<code>postbacks</code> partition ${entry.log_partition}, offset ${entry.log_offset}`;

export const NOT_IN_LEDGER = html`<div class="notice" role="note"><b>Not in the ledger.</b> These postbacks were refused before they reached the log
(<code>event_logged: false</code>): nothing was recorded or counted for them, except that an append the log did not answer in time (<code>postback_v10_unavailable</code> while it could not take writes) may still have been written later; a search by its correlation id then finds it in the log, and the partner's retry got its decision. They are kept for diagnostics only, in a bounded store that drops the oldest.</div>`;

/**
 * A table wider than a phone's screen, in a box that scrolls sideways on its own: the table pans,
 * the page stays as wide as the screen. The box takes the focus, so the keyboard scrolls it too.
 */
export const scrollingTable = (label: string, table: SafeHtml) => html`<div class="table-scroll" role="region" aria-label="${label}" tabindex="0">${table}</div>`;

/** Rows of refusals, each with its sanitized excerpt of what was sent. */
export function refusalRows(refusals: PostbackRefusal[]): SafeHtml {
  return scrollingTable('Refusals kept outside the log', html`<table class="refusals"><thead><tr><th>Time (UTC)</th><th>Refused</th><th>Reason</th><th>Partner (as sent)</th><th>Source</th><th>Correlation id</th><th>What was sent (excerpt)</th></tr></thead><tbody>
${refusals.map(
  (refusal) => html`<tr><td>${refusal.at}</td><td>${decisionBadge('refused')} <span class="muted">HTTP ${refusal.status}</span></td><td><code>${refusal.reason}</code></td>
<td class="id">${refusal.partner_id}</td><td>${refusal.source_ip} <span class="muted">${refusal.method}${refusal.content_type ? html` ${refusal.content_type}` : ''}</span></td>
<td><a class="id" href="${detailPath(refusal.correlation_id)}">${refusal.correlation_id}</a></td><td><code>${refusal.excerpt}</code></td></tr>`,
)}</tbody></table>`);
}
