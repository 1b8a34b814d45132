import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { fromFramework } from '../../../../platform/http/framework-errors.js';
import { html } from '../../../../platform/http/html.js';
import { layout, sendPage } from './layout.js';
import type { AdminSessions } from './session.js';

/** What an error page is, in its window title. */
const ERROR_PLACES: Record<number, string> = { 404: 'Not found', 405: 'Method not allowed', 503: 'Unavailable' };

/** Where the operator pages are: an address under it the router cannot decode is answered as a page too. */
export const OPERATOR_PAGES_PREFIX = '/admin/postbacks/';

/** An error of the operator pages, as a page; `signedIn` only for a request that passed the sign-in check. */
export function sendErrorPage(reply: FastifyReply, status: number, message: string, signedIn: boolean) {
  const body = html`<div class="errors" role="alert">${message}</div><p><a href="/admin/postbacks">← Search</a></p>`;
  return sendPage(reply, status, layout('Operator pages', body, { signedIn, place: ERROR_PLACES[status] ?? `Error ${status}` }));
}

/**
 * A page address that is not valid percent-encoded UTF-8 (a link cut or mangled on its way) never
 * reaches the pages' routes, so no sign-in check runs: it is the same 400 the API answers, as a
 * page, since a person in a browser followed it. Sign-out shows for a valid session cookie only:
 * a bearer token is a script's, with no cookie to clear, and judging it here would check tokens
 * outside the throttle of wrong ones.
 */
export async function sendUndecodablePathPage(error: FastifyError, request: FastifyRequest, reply: FastifyReply, sessions: AdminSessions) {
  const signedIn = await sessions.valid(request).catch(() => false);
  return sendErrorPage(reply, 400, fromFramework(error, request)!.message, signedIn);
}
