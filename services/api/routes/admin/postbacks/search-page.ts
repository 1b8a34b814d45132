import { html, type SafeHtml } from '../../../../../platform/http/html.js';
import { DECISIONS, IDENTITY_KINDS, type PostbackLogEntry } from '../../../../../projections/ledger/queries.js';
import type { PostbackRefusal } from '../../../postback-refusals.js';
import {
  NOT_IN_LEDGER, attributionPath, scrollingTable, timeText, decisionBadge, detailPath, identityOf, payoutOf, positionOf, reasonOf, refusalRows, searchPath,
} from './cells.js';
import { DEFAULT_LIMIT, MAX_IDENTITY_CHARACTERS, MAX_LIMIT, REFUSED, datetimeLocalValue, type SearchError, type SearchField, type SearchForm } from './search-params.js';

/** What one search page shows: a page of the log, or of the refusals kept outside it. */
export type Listing =
  | { kind: 'log'; rows: PostbackLogEntry[]; newer?: string; older?: string; refusals?: { rows: PostbackRefusal[]; more: boolean } | 'unavailable' }
  | { kind: 'refused'; rows: PostbackRefusal[]; newer?: string; older?: string };

const LABELS: Record<Exclude<SearchField, 'after' | 'before' | 'identity_kind' | 'decision' | 'limit' | 'from' | 'to'>, string> = {
  correlation_id: 'Correlation id',
  partner_id: 'Partner id',
  identity: 'Identity (event_id, order_id or partner_txn_id)',
  click_id: 'Click id (svc_click_id)',
  instance_id: 'Card (offer_instance_id)',
};

/** The form's control for a field, as a summary link points to it. */
const controlId = (field: SearchField) => `search-${field}`;
/** The fields the form has a control for (a page position comes from a link, not the form). */
const hasControl = (field: SearchField) => field !== 'after' && field !== 'before';
const errorId = (index: number) => `search-error-${index}`;

/**
 * What a control carries when its field is wrong: marked invalid, described by its messages (a
 * screen reader reads them with the label), and the first one focused on load, so a keyboard user
 * lands where the correction is to be made (the page has no script to move focus).
 */
function invalidAttributes(field: SearchField, errors: SearchError[]): SafeHtml | string {
  const ids = errors.flatMap((error, index) => (error.field === field ? [errorId(index)] : []));
  if (ids.length === 0) return '';
  const first = errors.find((error) => hasControl(error.field))?.field === field;
  return html` aria-invalid="true" aria-describedby="${ids.join(' ')}"${first ? html` autofocus` : ''}`;
}

/**
 * The most a text field takes (UTF-16 units, as maxlength counts them): far more than a valid
 * value, but a long paste cannot make the address exceed what the server reads (16 KB), which
 * answered 431 instead of this page with its message and the form.
 */
const maxLengthOf = (field: SearchField) => (field === 'identity' ? 2 * MAX_IDENTITY_CHARACTERS : 100);

function searchForm(form: SearchForm, errors: SearchError[]): SafeHtml {
  const invalid = (field: SearchField) => invalidAttributes(field, errors);
  const text = (field: keyof typeof LABELS) =>
    html`<label>${LABELS[field]} <input type="text" id="${controlId(field)}" name="${field}" value="${form[field]}" maxlength="${maxLengthOf(field)}" spellcheck="false"${invalid(field)}></label>`;
  // A value a datetime-local input cannot show (a mistyped time, microseconds) stays as text, as sent.
  const time = (field: 'from' | 'to', label: string) => {
    const local = datetimeLocalValue(form[field]);
    return local === undefined
      ? html`<label>${label} (UTC) <input type="text" id="${controlId(field)}" name="${field}" value="${form[field]}" maxlength="${maxLengthOf(field)}" spellcheck="false"${invalid(field)}></label>`
      : html`<label>${label} (UTC) <input type="datetime-local" step="1" id="${controlId(field)}" name="${field}" value="${local}"${invalid(field)}></label>`;
  };
  const option = (value: string, label: string, current: string) => html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
  return html`<form method="get" action="/admin/postbacks" class="search" novalidate>
${text('correlation_id')}${text('partner_id')}${text('identity')}
<label>Identity field <select id="${controlId('identity_kind')}" name="identity_kind"${invalid('identity_kind')}>${option('', 'any of the three', form.identity_kind)}${IDENTITY_KINDS.map((kind) => option(kind, kind, form.identity_kind))}</select></label>
${text('click_id')}${text('instance_id')}
${time('from', 'Received from')}${time('to', 'Received before')}
<label>Decision <select id="${controlId('decision')}" name="decision"${invalid('decision')}>${option('', 'any', form.decision)}${DECISIONS.map((decision) => option(decision, decision.replaceAll('_', ' '), form.decision))}${option(REFUSED, 'refused before the log (not in the ledger)', form.decision)}</select></label>
<label>Per page <input type="number" id="${controlId('limit')}" name="limit" min="1" max="${MAX_LIMIT}" value="${form.limit || String(DEFAULT_LIMIT)}"${invalid('limit')}></label>
<div class="buttons"><button type="submit">Search</button><a href="/admin/postbacks">Clear</a></div>
</form>`;
}

/** What is wrong, above the form: each field named and linked to its control. */
function errorSummary(errors: SearchError[]): SafeHtml | string {
  if (errors.length === 0) return '';
  const item = (error: SearchError, index: number) => {
    const name = hasControl(error.field) ? html`<a href="#${controlId(error.field)}">${error.field}</a>` : error.field;
    return html`<li id="${errorId(index)}"><b>${name}</b>: ${error.message}</li>`;
  };
  return html`<div class="errors" role="alert"><b>The search was not run:</b><ul>${errors.map(item)}</ul></div>`;
}

function logRows(rows: PostbackLogEntry[]): SafeHtml {
  return scrollingTable('Postbacks in the log', html`<table class="postbacks"><thead><tr><th>Received (UTC)</th><th>Decision</th><th>Reason</th><th>Partner</th><th>Identity</th><th>Attribution path</th><th>Payout</th><th>Log position</th><th>Links</th></tr></thead><tbody>
${rows.map(
  (row) => html`<tr data-correlation-id="${row.correlation_id}"><td>${timeText(row.received_at)}</td><td>${decisionBadge(row.decision)}</td><td>${reasonOf(row)}</td>
<td><a class="id" href="${searchPath({ partner_id: row.partner_id })}">${row.partner_id}</a></td><td>${identityOf(row)}</td><td>${attributionPath(row)}</td>
<td>${payoutOf(row)}</td><td>${positionOf(row)}</td>
<td><a href="${detailPath(row.correlation_id)}">details</a><br><a href="${detailPath(row.original_correlation_id)}">conversion</a>${row.offer_instance_id ? html`<br><a href="${searchPath({ instance_id: row.offer_instance_id })}">card</a>` : ''}</td></tr>`,
)}</tbody></table>`);
}

function pages(form: SearchForm, listing: Listing): SafeHtml {
  const at = (cursor: Partial<Record<'after' | 'before', string>>) => searchPath({ ...form, after: undefined, before: undefined, ...cursor });
  const first = form.after || form.before ? html`<a href="${at({})}" rel="first">Newest</a>` : '';
  const newer = listing.newer ? html`<a href="${at({ before: listing.newer })}" rel="prev">← Newer</a>` : '';
  const older = listing.older ? html`<a href="${at({ after: listing.older })}" rel="next">Older →</a>` : '';
  return html`<nav class="pages" aria-label="pages">${first}${newer}${older}</nav>`;
}

export function searchPage(form: SearchForm, errors: SearchError[], listing?: Listing): SafeHtml {
  let results: SafeHtml | string = '';
  if (listing?.kind === 'log') {
    const count = listing.rows.length === 0 ? html`<p class="empty">No postbacks in the log match this search.</p>` : html`<p class="count">${listing.rows.length} ${listing.rows.length === 1 ? 'postback' : 'postbacks'} in the log on this page, newest first.</p>`;
    const preview = listing.refusals;
    const refused = preview === 'unavailable'
      ? html`<h2>Refused before the log</h2><p class="notice" role="status">The refusals kept outside the log cannot be read right now (their store did not answer); the postback log above is complete. Try again shortly.</p>`
      : preview && preview.rows.length > 0
        ? html`<h2>Refused before the log</h2>${NOT_IN_LEDGER}${refusalRows(preview.rows)}
${preview.more ? html`<p><a href="${searchPath({ ...form, after: undefined, before: undefined, decision: REFUSED })}">All matching refusals →</a></p>` : ''}`
        : '';
    results = html`<h2>Postback log</h2>${count}${listing.rows.length > 0 ? logRows(listing.rows) : ''}${pages(form, listing)}${refused}`;
  } else if (listing?.kind === 'refused') {
    const count = listing.rows.length === 0 ? html`<p class="empty">No refusals kept match this search.</p>` : html`<p class="count">${listing.rows.length} ${listing.rows.length === 1 ? 'refusal' : 'refusals'} on this page, newest first.</p>`;
    results = html`<h2>Refused before the log</h2>${NOT_IN_LEDGER}${count}${listing.rows.length > 0 ? refusalRows(listing.rows) : ''}${pages(form, listing)}`;
  }
  return html`${errorSummary(errors)}${searchForm(form, errors)}${results}`;
}
