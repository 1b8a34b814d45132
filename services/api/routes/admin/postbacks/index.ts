import type { FastifyInstance, FastifyRequest } from 'fastify';
import { settledWithin } from '../../../../../platform/async/deadline.js';
import { findClick } from '../../../../../projections/clicks/queries.js';
import { findConversion, findPostbackLogEntry, postbacksOfIdentity, searchPostbackLog } from '../../../../../projections/ledger/queries.js';
import { findServedInstances } from '../../../../../projections/serves/queries.js';
import { CANONICAL_UUID } from '../../../../../platform/ids/uuid-text.js';
import type { Runtime } from '../../../../../platform/runtime.js';
import { notFound } from '../../../../../platform/http/errors.js';
import { unavailableOnFailure } from '../../../../../platform/http/read-or-unavailable.js';
import { html } from '../../../../../platform/http/html.js';
import { searchRefusals, type PostbackRefusals } from '../../../postback-refusals.js';
import { rawQueryOf, undecodableParameters } from '../../../../../platform/http/form-pairs.js';
import { layout, sendPage } from '../layout.js';
import { loggedDetailPage, refusalDetailPage } from './detail-page.js';
import { searchPage, type Listing } from './search-page.js';
import { logCursorOf, parseLogCursor, parseSearch, SEARCH_FIELDS, type Search } from './search-params.js';

const TITLE = 'Postback log';
/** Refusals shown under a search of the log; the rest are one link away. */
const REFUSALS_PREVIEW = 5;
const SIBLINGS_SHOWN = 50;
/** How long the refusals under a search of the log may take before the page goes without them. */
const REFUSALS_PREVIEW_MS = 1_500;

/** The window title of a search's page: which listing, and which page of it. */
function placeOf({ filter, refused, page }: Search): string {
  const listing = refused ? 'Refused before the log' : Object.keys(filter).length > 0 ? 'Search results' : 'Newest postbacks';
  return page.after ? `${listing}, older page` : page.before ? `${listing}, newer page` : listing;
}

/**
 * The operator page: `GET /admin/postbacks` searches the postback log (and the refusals kept
 * outside it), `GET /admin/postbacks/{correlation_id}` shows one postback with its conversion and
 * card. Sign-in is checked by the parent plugin. Bad input is a 400 page naming the field.
 */
export async function postbackPages(app: FastifyInstance, { runtime, refusals }: { runtime: Runtime; refusals: PostbackRefusals }) {
  /** A read that fails or does not answer in time is a 503 page, as the API's routes answer 503. */
  const readOrUnavailable = unavailableOnFailure(
    'POSTBACK_LOG_UNAVAILABLE',
    'The postback log cannot be read right now (the database, or for refusals their store, is unavailable or did not answer in time); try again shortly.',
    'postback log page read failed',
  );

  async function listing({ filter, refused, page }: Search, request: FastifyRequest): Promise<Listing> {
    if (refused) {
      const { rows, more } = await searchRefusals(refusals, filter, page);
      const older = page.before !== undefined || more ? rows.at(-1)?.id : undefined;
      const newer = page.before !== undefined ? (more ? rows[0]?.id : undefined) : page.after !== undefined ? rows[0]?.id : undefined;
      return { kind: 'refused', rows: rows.map((row) => row.value), newer, older };
    }
    const after = page.after === undefined ? undefined : parseLogCursor(page.after);
    const before = page.before === undefined ? undefined : parseLogCursor(page.before);
    const { rows, more } = await searchPostbackLog(runtime.db, filter, { after, before, limit: page.limit });
    const last = rows.at(-1);
    const first = rows[0];
    const older = last && (before !== undefined || more) ? logCursorOf(last) : undefined;
    const newer = first && (before !== undefined ? more : after !== undefined) ? logCursorOf(first) : undefined;
    // Refusals have no decision of the ledger: shown when the search does not ask for one. They are
    // kept apart (in Redis with REDIS_URL): a store that fails or is slow leaves the log's rows
    // shown, with a note, rather than failing the page.
    if (filter.decision !== undefined || page.after || page.before) return { kind: 'log', rows, newer, older };
    const preview = await settledWithin(searchRefusals(refusals, filter, { limit: REFUSALS_PREVIEW }), REFUSALS_PREVIEW_MS);
    if (!preview.ok) request.log.warn(`postback refusals could not be read for the page: ${preview.why}`);
    return { kind: 'log', rows, newer, older, refusals: preview.ok ? { rows: preview.value.rows.map((row) => row.value), more: preview.value.more } : 'unavailable' };
  }

  /** The detail page of a logged or refused postback, or undefined when neither has the id. */
  async function detailOf(correlationId: string) {
    const entry = await findPostbackLogEntry(runtime.db, correlationId);
    if (entry) {
      const [conversion, siblings, cards, click] = await Promise.all([
        findConversion(runtime.db, entry.partner_id, entry.identity_key),
        postbacksOfIdentity(runtime.db, entry.partner_id, entry.identity_key, SIBLINGS_SHOWN),
        entry.offer_instance_id === null ? [] : findServedInstances(runtime.db, [entry.offer_instance_id]),
        entry.svc_click_id === null ? undefined : findClick(runtime.db, entry.svc_click_id),
      ]);
      return { place: `Postback ${correlationId}`, body: loggedDetailPage({ entry, conversion, siblings, card: cards[0], clickedAt: click?.clicked_at }) };
    }
    const refused = (await searchRefusals(refusals, { correlation_id: correlationId }, { limit: 1 })).rows[0];
    return refused && { place: `Refused postback ${correlationId}`, body: refusalDetailPage(refused.value) };
  }

  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const { form, search, errors } = parseSearch(request.query as Record<string, unknown>, undecodableParameters(rawQueryOf(request.url), SEARCH_FIELDS));
    if (!search) return sendPage(reply, 400, layout(TITLE, searchPage(form, errors), { signedIn: true, place: 'Error: search not run' }));
    const found = await readOrUnavailable(request, () => listing(search, request));
    return sendPage(reply, 200, layout(TITLE, searchPage(form, [], found), { signedIn: true, place: placeOf(search) }));
  });

  app.get('/:correlation_id', { schema: { hide: true } }, async (request, reply) => {
    const raw = (request.params as { correlation_id: string }).correlation_id;
    const correlationId = raw.trim().toLowerCase();
    if (!CANONICAL_UUID.test(correlationId)) {
      return sendPage(reply, 400, layout(TITLE, html`<div class="errors" role="alert"><b>correlation_id</b>: expected a UUID such as 0193b2c4-5d6e-7f80-9a1b-2c3d4e5f6a7b</div><p><a href="/admin/postbacks">← Search</a></p>`, { signedIn: true, place: 'Error: not a correlation id' }));
    }
    const page = await readOrUnavailable(request, () => detailOf(correlationId));
    if (page) return sendPage(reply, 200, layout(TITLE, page.body, { signedIn: true, place: page.place }));
    const missing = html`<p>No postback with correlation id <span class="id">${correlationId}</span> is in the log, nor among the refusals kept.</p><p><a href="/admin/postbacks">← Search</a></p>`;
    return sendPage(reply, 404, layout(TITLE, missing, { signedIn: true, place: 'Not found' }));
  });

  // Paths and methods no page has belong to this context, so the pages' error handler answers them
  // as pages (after the sign-in check): the app's own preParsing hook refuses them first, 404 or
  // 405 naming the methods, before this handler would run.
  app.setNotFoundHandler(async (request) => {
    throw notFound(`no page for ${request.method} ${request.url.split('?')[0]}`);
  });
}
