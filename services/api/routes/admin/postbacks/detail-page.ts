import { html, type HtmlValue, type SafeHtml } from '../../../../../platform/http/html.js';
import type { ConversionEntry, PostbackLogDetail, PostbackLogEntry } from '../../../../../projections/ledger/queries.js';
import type { ServedInstanceRow } from '../../../../../projections/serves/evolve.js';
import type { PostbackRefusal } from '../../../postback-refusals.js';
import { formatServedAt } from '../../offers/instances-cards.js';
import { NOT_IN_LEDGER, attributionPath, decisionBadge, detailPath, identityOf, payoutOf, positionOf, reasonOf, refusalRows, searchPath, timeText } from './cells.js';

/** What the detail view of a logged postback shows besides the row itself. */
export interface LoggedDetail {
  entry: PostbackLogDetail;
  conversion?: ConversionEntry;
  /** Every logged postback of the same identity, in log order. */
  siblings: PostbackLogEntry[];
  card?: ServedInstanceRow;
  clickedAt?: Date;
}

const list = (items: [string, HtmlValue][]) => html`<dl>${items.map(([term, value]) => html`<dt>${term}</dt><dd>${value ?? html`<span class="muted">—</span>`}</dd>`)}</dl>`;
const id = (value: string | null) => (value === null ? null : html`<span class="id">${value}</span>`);

function cardSection(detail: LoggedDetail): SafeHtml {
  const { entry, card } = detail;
  if (entry.offer_instance_id === null) return html`<h2>Card</h2><p class="muted">Attributed without a card (a static link): offer <span class="id">${entry.offer_id}</span>.</p>`;
  if (!card) return html`<h2>Card</h2><p>Card <span class="id">${entry.offer_instance_id}</span> is not in the served cards read model.</p>`;
  return html`<h2>Card</h2>${list([
    ['offer_instance_id', html`<a class="id" href="${searchPath({ instance_id: card.offer_instance_id })}">${card.offer_instance_id}</a> <span class="muted">(its postbacks)</span>`],
    ['offer', id(card.offer_id)],
    ['application', id(card.application_id)],
    ['placement', id(card.placement_id)],
    ['environment', card.environment],
    ['served at (UTC)', formatServedAt(card.served_at)],
    ['tracked link', card.link_url === null ? null : html`<code>${card.link_url}</code>`],
  ])}`;
}

function conversionSection({ entry, conversion }: LoggedDetail): SafeHtml {
  if (!conversion) return html`<h2>Conversion</h2><p class="muted">No conversion is recorded for this identity yet.</p>`;
  const self = conversion.correlation_id === entry.correlation_id;
  return html`<h2>Conversion</h2>${list([
    ['recorded by', self ? html`this postback` : html`<a class="id" href="${detailPath(conversion.correlation_id)}">${conversion.correlation_id}</a>`],
    ['status', html`${decisionBadge(conversion.status)} ${conversion.counted ? 'counted' : 'not counted'}`],
    ['goal', conversion.goal_event === null ? null : html`<code>${conversion.goal_event}</code>`],
    ['payout', payoutOf(conversion)],
    ['received at (UTC)', timeText(conversion.received_at)],
    ['log position', positionOf(conversion)],
  ])}`;
}

export function loggedDetailPage(detail: LoggedDetail): SafeHtml {
  const { entry } = detail;
  const siblings = detail.siblings.map(
    (row) => html`<li>${timeText(row.received_at)} ${decisionBadge(row.decision)} ${row.correlation_id === entry.correlation_id ? html`<b class="id">${row.correlation_id}</b> (this one)` : html`<a class="id" href="${detailPath(row.correlation_id)}">${row.correlation_id}</a>`}</li>`,
  );
  return html`<p><a href="/admin/postbacks">← Search</a></p>
<h2>Postback <span class="id">${entry.correlation_id}</span></h2>
${list([
  ['decision', decisionBadge(entry.decision)],
  ['reason', reasonOf(entry)],
  ['received at (UTC)', timeText(entry.received_at)],
  ['partner', html`<a class="id" href="${searchPath({ partner_id: entry.partner_id })}">${entry.partner_id}</a>`],
  ['channel, source', html`${entry.channel}, ${entry.source_ip}`],
  ['identity', identityOf(entry)],
  ['amount', entry.amount === null ? null : html`${entry.amount} ${entry.currency}`],
  ['reported attribution', html`svc_click_id ${id(entry.reported_click_id) ?? '—'}, svc_tracking_id ${entry.reported_tracking_id === null ? '—' : html`<code>${entry.reported_tracking_id}</code>`}, offer_instance_id ${id(entry.reported_instance_id) ?? '—'}`],
  ['attribution path', attributionPath(entry)],
  ['click', entry.svc_click_id === null ? null : html`<a class="id" href="${searchPath({ click_id: entry.svc_click_id })}">${entry.svc_click_id}</a>${detail.clickedAt ? html` clicked at ${detail.clickedAt.toISOString()}` : ''}`],
  ['payout', payoutOf(entry)],
  ['log position', positionOf(entry)],
  ['fingerprint', id(entry.fingerprint)],
  ['hash (previous → this)', html`<span class="id">${entry.prev_hash}</span> → <span class="id">${entry.hash}</span>`],
])}
${conversionSection(detail)}
${cardSection(detail)}
<h2>Postbacks of this identity</h2><ol>${siblings}</ol>`;
}

export function refusalDetailPage(refusal: PostbackRefusal): SafeHtml {
  return html`<p><a href="/admin/postbacks">← Search</a></p>
<h2>Refused postback <span class="id">${refusal.correlation_id}</span></h2>${NOT_IN_LEDGER}${refusalRows([refusal])}`;
}
