import type { FastifyReply } from 'fastify';
import { html } from '../../../../platform/http/html.js';
import { layout, sendPage } from './layout.js';

/** What an error page is, in its window title. */
const ERROR_PLACES: Record<number, string> = { 404: 'Not found', 405: 'Method not allowed', 503: 'Unavailable' };

/** An error of the operator pages, as a page; `signedIn` only for a request that passed the sign-in check. */
export function sendErrorPage(reply: FastifyReply, status: number, message: string, signedIn: boolean) {
  const body = html`<div class="errors" role="alert">${message}</div><p><a href="/admin/postbacks">← Search</a></p>`;
  return sendPage(reply, status, layout('Operator pages', body, { signedIn, place: ERROR_PLACES[status] ?? `Error ${status}` }));
}

