import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../../../../platform/http/html.js';
import { isSecretParameter } from '../../../../platform/http/loggable-url.js';
import { layout, sendPage } from './layout.js';
import type { AdminSessions } from './session.js';
import { judgeToken } from '../../../../platform/http/token-throttle.js';
import type { AdminTokenThrottle } from './token-throttle.js';

const HOME = '/admin/postbacks';
/**
 * Where a sign-in may return to: an admin page of this origin only (never another host), written
 * in printable ASCII without backslashes (a Location header takes nothing else; a browser sends
 * the rest percent-encoded).
 */
const RETURN_TO = /^\/admin\/postbacks(?:[/?][\x21-\x5b\x5d-\x7e]*)?$/;

/** The path without credential parameters: a token pasted into a URL by mistake goes no further. */
function withoutSecrets(path: string): string {
  const [route, query] = path.split(/\?(.*)/s, 2) as [string, string | undefined];
  if (query === undefined) return path;
  const kept = query.split('&').filter((pair) => !isSecretParameter(pair));
  return kept.length === 0 ? route : `${route}?${kept.join('&')}`;
}

/**
 * A `.` or `..` segment in the path, also percent-encoded (`%2e`): a browser resolves it before
 * it asks, so `/admin/postbacks/../../l/<code>` would leave the admin pages (there: open a tracked
 * link, record a click and go to its destination).
 */
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?:\/|$)/i;

export const returnPath = (next: unknown) =>
  typeof next === 'string' && next.length <= 2_000 && RETURN_TO.test(next) && !DOT_SEGMENT.test(next.split(/[?#]/, 1)[0]!) ? withoutSecrets(next) : HOME;

/**
 * A sign-in or sign-out posted from another site (a form there aimed at this one): refused, so a
 * page elsewhere cannot sign an operator out or into a session of its choosing. Browsers say where
 * a form came from in Sec-Fetch-Site and Origin; clients that send neither (curl) are let through.
 */
function crossSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  // same-site is another origin too (a sibling subdomain): only this origin or the user's own act (none) pass.
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  if (origin === 'null') return true;
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

/** The sign-in form; it posts the token in the body, so the token is never in a URL or a log line. */
export function sendLogin(reply: FastifyReply, status: number, next: string, problem?: string) {
  const body = html`<h2>Sign in</h2>
${problem ? html`<div class="errors" role="alert">${problem}</div>` : ''}
<form method="post" action="/admin/login" class="search">
<label>Admin token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<input type="hidden" name="next" value="${next}">
<div class="buttons"><button type="submit">Sign in</button></div>
</form>
<p class="muted">The token is ADMIN_TOKEN. The session cookie holds a signature made with it, never the token itself, and lasts 8 hours.</p>`;
  // A 401 names its scheme (RFC 9110): the pages take the token as a bearer too (scripts), besides the form.
  if (status === 401) reply.header('www-authenticate', 'Bearer');
  return sendPage(reply, status, layout('Operator pages', body, { signedIn: false, place: problem ? 'Sign-in refused' : 'Sign in' }));
}

/** The sign-in form again, refused for `seconds`: this address presented too many wrong tokens (platform/http/token-throttle.ts). */
export function sendRefusedSignIn(reply: FastifyReply, next: string, seconds: number) {
  reply.header('retry-after', String(seconds));
  return sendLogin(reply, 429, next, `Too many wrong tokens were sent from your address: try again in ${seconds} s.`);
}

/** `GET/POST /admin/login`, `POST /admin/logout`. */
export async function loginRoutes(app: FastifyInstance, { sessions, isAdminToken, throttle }: { sessions: AdminSessions; isAdminToken: (token: string) => boolean; throttle: AdminTokenThrottle }) {
  app.get('/login', { schema: { hide: true } }, async (request, reply) => sendLogin(reply, 200, returnPath((request.query as { next?: unknown }).next)));

  app.post('/login', { schema: { hide: true } }, async (request, reply) => {
    const form = (request.body ?? {}) as { token?: unknown; next?: unknown };
    const next = returnPath(form.next);
    if (crossSite(request)) return sendLogin(reply, 403, next, 'Sign in from this page, not from another site.');
    const verdict = await judgeToken(request, typeof form.token === 'string' ? form.token : '', isAdminToken, throttle);
    if (typeof verdict === 'object') return sendRefusedSignIn(reply, next, verdict.refusedFor);
    if (verdict !== 'right') return sendLogin(reply, 401, next, 'That token was not accepted.');
    return reply.status(303).header('set-cookie', await sessions.open(request)).header('location', next).send();
  });

  app.post('/logout', { schema: { hide: true } }, async (request, reply) => {
    if (crossSite(request)) return sendLogin(reply, 403, HOME, 'Sign out from this page, not from another site.');
    return reply.status(303).header('set-cookie', sessions.close(request)).header('location', '/admin/login').send();
  });
}
